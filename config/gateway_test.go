// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	aliceKey = "alice-key-0123456789abcdef"
	bobKey   = "bob-key-0123456789abcdef0"
)

func TestGatewayValidation(t *testing.T) {
	jwt := func(c *Config) {
		c.Gateway.JWT.JWKSURL, c.Gateway.JWT.Audience, c.Gateway.JWT.Callers = "https://idp.example.com/jwks", "a2abus", []string{"Carol"}
	}
	cases := []struct {
		name string
		set  func(*Config)
		bad  string // the key named in the error; "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"keys", func(c *Config) { c.Gateway.Keys = []string{"Alice=" + aliceKey} }, ""},
		{"a short key", func(c *Config) { c.Gateway.Keys = []string{"Alice=short"} }, "gateway.keys"},
		{"a key without a name", func(c *Config) { c.Gateway.Keys = []string{aliceKey} }, "gateway.keys"},
		{"a key for a bad name", func(c *Config) { c.Gateway.Keys = []string{"not a name=" + aliceKey} }, "gateway.keys"},
		{"jwt", jwt, ""},
		{"jwt over http", func(c *Config) { jwt(c); c.Gateway.JWT.JWKSURL = "http://idp.example.com/jwks" }, "gateway.jwt.jwks_url"},
		{"jwt over http on loopback", func(c *Config) { jwt(c); c.Gateway.JWT.JWKSURL = "http://127.0.0.1:9/jwks" }, ""},
		{"jwt without an audience", func(c *Config) { jwt(c); c.Gateway.JWT.Audience = "" }, "gateway.jwt.audience"},
		{"jwt without callers", func(c *Config) { jwt(c); c.Gateway.JWT.Callers = nil }, "gateway.jwt.callers"},
		{"jwt without a key set", func(c *Config) { c.Gateway.JWT.Audience = "a2abus" }, "gateway.jwt.jwks_url"},
		{"a bad listen address", func(c *Config) { c.Gateway.Listen = "8090" }, "gateway.listen"},
		{"a public URL with credentials", func(c *Config) { c.Gateway.PublicURL = "https://u:p@a2a.example.com" }, "gateway.public_url"},
		{"a negative rate", func(c *Config) { c.Gateway.Rate = -1 }, "gateway.rate"},
		{"no burst", func(c *Config) { c.Gateway.Burst = 0 }, "gateway.burst"},
		{"unlimited rate, no burst", func(c *Config) { c.Gateway.Rate, c.Gateway.Burst = 0, 0 }, ""},
		{"no stream", func(c *Config) { c.Gateway.MaxStreams = 0 }, "gateway.max_streams"},
		{"push to a network and hosts", func(c *Config) {
			c.Gateway.Push.Allow = []string{"10.0.0.0/8", "hooks.example.com", "*.example.org", "::1"}
		}, ""},
		{"push to a URL", func(c *Config) { c.Gateway.Push.Allow = []string{"https://hooks.example.com/x"} }, "gateway.push.allow"},
		{"no push attempt", func(c *Config) { c.Gateway.Push.MaxAttempts = 0 }, "gateway.push.max_attempts"},
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
		for _, k := range cfg.Gateway.Keys {
			if _, secret, _ := strings.Cut(k, "="); secret != "" && strings.Contains(fmt.Sprint(err), secret) {
				t.Errorf("%s: the error quotes the key: %v", c.name, err)
			}
		}
	}
}

// TestGatewayKeys: keys come from gateway.keys and gateway.keys_file
// ("Name key" or "Name=key" lines, comments); a bad line is named by its
// number, never quoted; Callers lists each name once, with the JWT's.
func TestGatewayKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte("# principals\nBob "+bobKey+"\n\nCarol=carol-key-0123456789abcd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := Default().Gateway
	g.Keys, g.KeysFile = []string{"Alice=" + aliceKey}, file
	g.JWT.JWKSURL, g.JWT.Callers = "https://idp.example.com/jwks", []string{"carol", "Dave"}
	keys, err := g.GatewayKeys()
	if err != nil {
		t.Fatal(err)
	}
	want := []GatewayKey{{"Alice", aliceKey}, {"Bob", bobKey}, {"Carol", "carol-key-0123456789abcd"}}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	names, err := g.Callers()
	if err != nil || !slices.Equal(names, []string{"Alice", "Bob", "Carol", "Dave"}) {
		t.Errorf("callers %v, %v", names, err)
	}
	if err := os.WriteFile(file, []byte("Bob "+bobKey+"\nEve tooshortkey\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = g.GatewayKeys()
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "gateway.keys_file") || !strings.Contains(err.Error(), "line 2") ||
		strings.Contains(err.Error(), "tooshortkey") {
		t.Errorf("a short key in the file: %v", err)
	}
	c := Default()
	c.Gateway.Keys = []string{"Alice=" + aliceKey}
	if r := c.Redacted(); strings.Contains(strings.Join(r.Gateway.Keys, ","), aliceKey) || c.Gateway.Keys[0] != "Alice="+aliceKey {
		t.Errorf("redacted keys %v (original %v)", r.Gateway.Keys, c.Gateway.Keys)
	}
}
