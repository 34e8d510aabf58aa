// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

func TestHTTPAndMCPValidation(t *testing.T) {
	const token = "0123456789abcdef"
	cases := []struct {
		name string
		set  func(*Config)
		bad  string // the key named in the error; "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"token", func(c *Config) { c.MCP.Token = token }, ""},
		{"token file", func(c *Config) { c.MCP.TokenFile = "/run/secrets/t" }, ""},
		{"short token", func(c *Config) { c.MCP.Token = "short" }, "mcp.token"},
		{"token with a space", func(c *Config) { c.MCP.Token = "0123456789 abcdef" }, "mcp.token"},
		{"token and file", func(c *Config) { c.MCP.Token, c.MCP.TokenFile = token, "/t" }, "mcp.token_file"},
		{"no session", func(c *Config) { c.MCP.MaxSessions = 0 }, "mcp.max_sessions"},
		{"no idle bound", func(c *Config) { c.MCP.SessionIdleTimeout = 0 }, "mcp.session_idle_timeout"},
		{"no header bound", func(c *Config) { c.HTTP.ReadHeaderTimeout = 0 }, "http.read_header_timeout"},
		{"no body time bound", func(c *Config) { c.HTTP.ReadTimeout = -time.Second }, "http.read_timeout"},
		{"no write bound", func(c *Config) { c.HTTP.WriteTimeout = 0 }, "http.write_timeout"},
		{"no idle connection bound", func(c *Config) { c.HTTP.IdleTimeout = 0 }, "http.idle_timeout"},
		{"tiny headers", func(c *Config) { c.HTTP.MaxHeaderBytes = 100 }, "http.max_header_bytes"},
		{"no body", func(c *Config) { c.HTTP.MaxBodyBytes = 0 }, "http.max_body_bytes"},
		{"no connection", func(c *Config) { c.HTTP.MaxConnections = 0 }, "http.max_connections"},
	}
	for _, c := range cases {
		cfg := Default()
		c.set(cfg)
		err := cfg.Validate()
		if c.bad == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.bad) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.bad)
		}
		if cfg.MCP.Token != "" && strings.Contains(err.Error(), cfg.MCP.Token) {
			t.Errorf("%s: the error shows the token: %v", c.name, err)
		}
	}
	l := Default().HTTP.Limits()
	if l.ReadTimeout != Default().HTTP.ReadTimeout || l.MaxBodyBytes != int64(Default().HTTP.MaxBodyBytes) || l.MaxConnections != Default().HTTP.MaxConnections {
		t.Errorf("Limits() = %+v", l)
	}
}

func TestBearerToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const token = "s3cret-token-0123456789"
	fifo := testenv.FIFO(t, dir, "fifo")
	for _, tc := range []struct {
		name string
		c    MCPConfig
		want string // the token, or what the error says
		err  bool
	}{
		{"inline", MCPConfig{Token: token}, token, false},
		{"file", MCPConfig{TokenFile: write("t1", "  "+token+"  \n")}, token, false},
		{"file, first line", MCPConfig{TokenFile: write("t2", token+"\nsecond line\n")}, token, false},
		{"none", MCPConfig{}, "no mcp token", true},
		{"missing file", MCPConfig{TokenFile: filepath.Join(dir, "nope")}, "mcp.token_file", true},
		{"short in file", MCPConfig{TokenFile: write("t3", "short\n")}, "at least 16 bytes", true},
		{"huge file", MCPConfig{TokenFile: write("t4", strings.Repeat("x", 8<<10))}, "larger than", true},
		{"fifo", MCPConfig{TokenFile: fifo}, "not a regular file", true},
		{"directory", MCPConfig{TokenFile: dir}, "not a regular file", true},
	} {
		got, err := tc.c.BearerToken()
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %q, %v; want an error saying %q", tc.name, got, err, tc.want)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestMCPTokenRedactedAndWarned(t *testing.T) {
	c := Default()
	c.MCP.Token = "0123456789abcdef-secret"
	if r := c.Redacted(); r.MCP.Token != Secret || c.MCP.Token == Secret {
		t.Errorf("redacted mcp.token = %q (original %q)", r.MCP.Token, c.MCP.Token)
	}
	warned := func(c *Config) bool {
		return slices.ContainsFunc(c.Warnings(), func(w string) bool { return strings.Contains(w, "mcp.insecure_no_auth") })
	}
	if warned(Default()) {
		t.Error("the defaults warn about mcp.insecure_no_auth")
	}
	c = Default()
	c.MCP.InsecureNoAuth = true
	if !warned(c) {
		t.Errorf("mcp.insecure_no_auth without a token: warnings %q", c.Warnings())
	}
}
