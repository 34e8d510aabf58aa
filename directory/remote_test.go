// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"errors"
	"strings"
	"testing"
)

// An entry with a url is a remote agent, with its authentication by file.
func TestWellKnownRemoteEntry(t *testing.T) {
	p := writeWellKnown(t, `[
  {"agentName": "Weather", "description": "the weather", "url": "https://weather.example.com/.well-known/agent-card.json",
   "auth": {"apiKeyFile": "/run/secrets/weather", "apiKeyHeader": "X-Weather-Key"},
   "skills": [{"id": "forecast"}]},
  {"agentName": "Local", "url": "http://127.0.0.1:8080"}
]`)
	agents, err := LoadWellKnown(p)
	if err != nil {
		t.Fatal(err)
	}
	w := agents[0]
	if w.URL != "https://weather.example.com/.well-known/agent-card.json" || w.Auth == nil ||
		w.Auth.APIKeyFile != "/run/secrets/weather" || w.Auth.APIKeyHeader != "X-Weather-Key" || w.Card().Skills[0].ID != "forecast" {
		t.Fatalf("entry = %+v, auth %+v", w, w.Auth)
	}
	if agents[1].URL != "http://127.0.0.1:8080" || agents[1].Auth != nil {
		t.Fatalf("entry = %+v", agents[1])
	}
}

func TestWellKnownRemoteEntryRefused(t *testing.T) {
	tests := []struct{ name, entry, want string }{
		{"no scheme", `"url": "weather.example.com/card"`, `url: must be an http:// or https:// URL, got scheme ""`},
		{"ftp", `"url": "ftp://weather.example.com/card"`, `url: must be an http:// or https:// URL, got scheme "ftp"`},
		{"no host", `"url": "https:///card"`, "url: must name a host"},
		{"password", `"url": "https://user:hunter2@weather.example.com/"`, "url: must not carry a user or password"},
		{"fragment", `"url": "https://weather.example.com/#x"`, "url: must not have a fragment"},
		{"too long", `"url": "https://w.example.com/` + strings.Repeat("a", MaxCardURLBytes) + `"`, "url: at most 2048 bytes"},
		{"auth without url", `"auth": {"bearerTokenFile": "/t"}`, "auth: only with url"},
		{"two secrets", `"url": "https://w.example.com", "auth": {"bearerTokenFile": "/t", "apiKeyFile": "/k"}`, "give bearerTokenFile or apiKeyFile, not both"},
		{"bad header", `"url": "https://w.example.com", "auth": {"apiKeyFile": "/k", "apiKeyHeader": "X Key"}`, `auth.apiKeyHeader: must name an HTTP header`},
		{"header without key", `"url": "https://w.example.com", "auth": {"apiKeyHeader": "X-Key"}`, "come with apiKeyFile"},
		{"inline secret", `"url": "https://w.example.com", "auth": {"bearerToken": "s3cret"}`, `unknown field "bearerToken"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeWellKnown(t, `[{"agentName": "Weather", `+tt.entry+`}]`)
			_, err := LoadWellKnown(p)
			if !errors.Is(err, ErrInvalidWellKnown) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadWellKnown = %v, want an error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error quotes a secret: %v", err)
			}
		})
	}
}
