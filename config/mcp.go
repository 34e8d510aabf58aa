// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// MCPConfig configures `a2abus mcp --http`: who may use it and how many
// sessions it keeps. The listener's own bounds are the http section's.
type MCPConfig struct {
	// Token is the bearer token every HTTP request must carry
	// (Authorization: Bearer <token>); a secret, redacted wherever the
	// configuration is printed. Empty: no token (then only a loopback
	// address is served, unless InsecureNoAuth).
	Token string `mapstructure:"token" yaml:"token"`
	// TokenFile holds the token instead (its first line, surrounding spaces
	// trimmed): a mounted Secret. Set Token or TokenFile, not both.
	TokenFile string `mapstructure:"token_file" yaml:"token_file"`
	// InsecureNoAuth serves a non-loopback address without a token: anyone
	// who reaches it can invoke agents. Never needed on loopback.
	InsecureNoAuth bool `mapstructure:"insecure_no_auth" yaml:"insecure_no_auth"`
	// MaxSessions bounds the MCP sessions open at once; a client that would
	// open one more is refused (503, saying so) until one closes.
	MaxSessions int `mapstructure:"max_sessions" yaml:"max_sessions"`
	// SessionIdleTimeout closes a session that sent no request for this long.
	SessionIdleTimeout time.Duration `mapstructure:"session_idle_timeout" yaml:"session_idle_timeout"`
}

// Defaults and bounds of the mcp section.
const (
	DefaultMCPMaxSessions        = 100
	DefaultMCPSessionIdleTimeout = 10 * time.Minute
	// MinMCPToken is the shortest bearer token accepted, in bytes.
	MinMCPToken      = 16
	maxMCPTokenBytes = 4 << 10
	maxMCPSessions   = 100_000
)

// ErrNoToken: BearerToken found no token configured.
var ErrNoToken = errors.New("config: no mcp token configured")

// HasToken reports whether a bearer token is configured (mcp.token or mcp.token_file).
func (c *MCPConfig) HasToken() bool { return c.Token != "" || c.TokenFile != "" }

// BearerToken returns the configured token: mcp.token, or the first line
// of mcp.token_file (a regular file of at most 4 KiB). Neither set is
// ErrNoToken. The token itself is in no error.
func (c *MCPConfig) BearerToken() (string, error) {
	if c.Token != "" {
		return c.Token, nil
	}
	if c.TokenFile == "" {
		return "", ErrNoToken
	}
	data, err := readKeyFile("mcp.token_file", c.TokenFile, maxMCPTokenBytes)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	token := strings.TrimSpace(line)
	if err := checkToken(token); err != nil {
		return "", invalid("mcp.token_file", "the token in %q %s", c.TokenFile, err)
	}
	return token, nil
}

// checkToken says what is wrong with a bearer token, never quoting it.
func checkToken(token string) error {
	if len(token) < MinMCPToken {
		return fmt.Errorf("must be at least %d bytes, got %d", MinMCPToken, len(token))
	}
	if strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII }) >= 0 {
		return errors.New("must be printable ASCII without spaces (it is sent in an HTTP header)")
	}
	return nil
}

func (c *MCPConfig) validate() []error {
	errs := []error{
		between("mcp.max_sessions", c.MaxSessions, 1, maxMCPSessions),
		positive("mcp.session_idle_timeout", c.SessionIdleTimeout),
	}
	if c.Token != "" {
		if err := checkToken(c.Token); err != nil {
			errs = append(errs, invalid("mcp.token", "%v", err))
		}
		if c.TokenFile != "" {
			errs = append(errs, invalid("mcp.token_file", "cannot be combined with mcp.token (use one or the other)"))
		}
	}
	return errs
}

// warnings says when mcp --http would serve without authentication beyond loopback.
func (c *MCPConfig) warnings() []string {
	if c.InsecureNoAuth && !c.HasToken() {
		return []string{"mcp.insecure_no_auth is true: mcp --http on a non-loopback address serves anyone who reaches it, without a token"}
	}
	return nil
}
