// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const remoteSecret = "s3cret-token-value"

func TestRemoteValidation(t *testing.T) {
	weather := RemoteAgent{Name: "Weather", CardURL: "https://weather.example.com"}
	with := func(f func(*RemoteAgent)) func(*Config) {
		return func(c *Config) {
			a := weather
			f(&a)
			c.Remote.Agents = []RemoteAgent{a}
		}
	}
	cases := []struct {
		name string
		set  func(*Config)
		bad  string // the key named in the error; "" for valid
	}{
		{"one remote", with(func(*RemoteAgent) {}), ""},
		{"bearer token", with(func(a *RemoteAgent) { a.BearerToken = remoteSecret }), ""},
		{"api key in a header", with(func(a *RemoteAgent) { a.APIKeyFile, a.APIKeyHeader = "/k", "X-Weather-Key" }), ""},
		{"transport", with(func(a *RemoteAgent) { a.Transport = "http+json" }), ""},
		{"bad name", with(func(a *RemoteAgent) { a.Name = "The Weather" }), "remote.agents[0].name"},
		{"no url", with(func(a *RemoteAgent) { a.CardURL = "" }), "remote.agents[0].card_url: required"},
		{"url with a password", with(func(a *RemoteAgent) { a.CardURL = "https://u:" + remoteSecret + "@w.example.com" }), "remote.agents[0].card_url"},
		{"two credentials", with(func(a *RemoteAgent) { a.BearerToken, a.APIKeyFile = remoteSecret, "/k" }), "give one credential, got bearer_token and api_key_file"},
		{"token with a space", with(func(a *RemoteAgent) { a.BearerToken = "s3cret token" }), "remote.agents[0].bearer_token"},
		{"header without a key", with(func(a *RemoteAgent) { a.APIKeyHeader = "X-Key" }), "remote.agents[0].api_key_header"},
		{"bad header", with(func(a *RemoteAgent) { a.APIKey, a.APIKeyHeader = remoteSecret, "X Key" }), "remote.agents[0].api_key_header"},
		{"grpc", with(func(a *RemoteAgent) { a.Transport = "GRPC" }), "remote.agents[0].transport"},
		{"duplicate", func(c *Config) {
			c.Remote.Agents = []RemoteAgent{weather, {Name: "weather", CardURL: "https://x.example.com"}}
		}, "remote.agents[1].name"},
		{"no check interval", func(c *Config) { c.Remote.CardCheckInterval = 0 }, "remote.card_check_interval"},
		{"no card timeout", func(c *Config) { c.Remote.CardTimeout = 0 }, "remote.card_timeout"},
		{"tiny card", func(c *Config) { c.Remote.MaxCardBytes = 10 }, "remote.max_card_bytes"},
		{"tiny response", func(c *Config) { c.Remote.MaxResponseBytes = 0 }, "remote.max_response_bytes"},
		{"no poll interval", func(c *Config) { c.Remote.PollInterval = 0 }, "remote.poll_interval"},
		{"no cancel timeout", func(c *Config) { c.Remote.CancelTimeout = 0 }, "remote.cancel_timeout"},
		{"backoff upside down", func(c *Config) { c.Remote.RetryMax = c.Remote.RetryMin / 2 }, "remote.retry_max"},
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
		if err != nil && strings.Contains(err.Error(), remoteSecret) {
			t.Errorf("%s: the error shows the secret: %v", c.name, err)
		}
	}
}

// A remote's credential: a bearer token or an API key in its header, from
// the key or its file (the first line); a bad file is named, the secret never.
func TestRemoteCredential(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name          string
		agent         RemoteAgent
		header, value string
		bad           string
	}{
		{"none", RemoteAgent{}, "", "", ""},
		{"bearer", RemoteAgent{BearerToken: remoteSecret}, "Authorization", "Bearer " + remoteSecret, ""},
		{"bearer file", RemoteAgent{BearerTokenFile: file("t", "  "+remoteSecret+"  \nignored\n")}, "Authorization", "Bearer " + remoteSecret, ""},
		{"api key", RemoteAgent{APIKey: remoteSecret}, "X-API-Key", remoteSecret, ""},
		{"api key file and header", RemoteAgent{APIKeyFile: file("k", remoteSecret), APIKeyHeader: "X-Weather-Key"}, "X-Weather-Key", remoteSecret, ""},
		{"missing file", RemoteAgent{BearerTokenFile: filepath.Join(dir, "nope")}, "", "", "remote.agents[0].bearer_token_file"},
		{"empty file", RemoteAgent{APIKeyFile: file("e", "\n"+remoteSecret)}, "", "", "holds no secret"},
		{"space in the file's secret", RemoteAgent{APIKeyFile: file("s", "s3cret token")}, "", "", "remote.agents[0].api_key_file: must be printable ASCII"},
	}
	for _, c := range cases {
		h, v, err := c.agent.Credential("remote.agents[0]")
		if c.bad != "" {
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.bad) || strings.Contains(err.Error(), remoteSecret) {
				t.Errorf("%s: %v, want an error containing %q and no secret", c.name, err, c.bad)
			}
			continue
		}
		if err != nil || h != c.header || v != c.value {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, h, v, err, c.header, c.value)
		}
	}
}

func TestRemoteSecretsRedactedAndPlainHTTPWarned(t *testing.T) {
	cfg := Default()
	cfg.Remote.Agents = []RemoteAgent{
		{Name: "Weather", CardURL: "http://weather.example.com", BearerToken: remoteSecret},
		{Name: "Local", CardURL: "http://127.0.0.1:8080", APIKey: remoteSecret},
		{Name: "Safe", CardURL: "https://docs.example.com", APIKey: remoteSecret},
	}
	r := cfg.Redacted()
	if r.Remote.Agents[0].BearerToken != Secret || r.Remote.Agents[1].APIKey != Secret || cfg.Remote.Agents[0].BearerToken != remoteSecret {
		t.Errorf("redacted %+v, original %+v", r.Remote.Agents, cfg.Remote.Agents)
	}
	w := strings.Join(cfg.Warnings(), "\n")
	if !strings.Contains(w, `remote agent "Weather": its credential is sent over plain http`) || strings.Contains(w, "Local") || strings.Contains(w, "Safe") {
		t.Errorf("warnings = %s", w)
	}
	if got, ok := cfg.Remote.Agent("weather"); !ok || got.Name != "Weather" {
		t.Errorf("Agent(weather) = %+v, %v", got, ok)
	}
}

// remote.agents from a file's YAML: unknown keys and non-strings named by item.
func TestRemoteAgentsFromFile(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "r.yaml", "remote:\n  agents:\n    - name: Weather\n      card_url: https://w.example.com\n      bearer_tokn: x\n    - name: [1]\n")
	_, err := Load(LoadOptions{File: p})
	if err == nil || !strings.Contains(err.Error(), "remote.agents[0].bearer_tokn: unknown key") || !strings.Contains(err.Error(), "remote.agents[1].name: must be a string") {
		t.Fatalf("Load = %v", err)
	}
	p = writeFile(t, dir, "ok.yaml", "remote:\n  agents:\n    - name: Weather\n      card_url: https://w.example.com\n")
	cfg, err := Load(LoadOptions{File: p})
	if err != nil || len(cfg.Remote.Agents) != 1 || cfg.Remote.Agents[0].CardURL != "https://w.example.com" {
		t.Fatalf("Load = %+v, %v", cfg.Remote, err)
	}
}
