// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/remote"
)

// A remote is declared in remote.agents or as a well-known entry with a
// url (its auth by file); a well-known entry of the same name gives the
// fallback skills; an unknown name lists the known ones.
func TestLookup(t *testing.T) {
	cfg := config.Default()
	cfg.Remote.Agents = []config.RemoteAgent{{Name: "Weather", CardURL: "https://w.example.com", APIKey: "k-123"}}
	wk := []directory.WellKnownAgent{
		{AgentName: "Weather", Skills: []directory.WellKnownSkill{{ID: "forecast"}}},
		{AgentName: "Docs", URL: "https://docs.example.com/card.json", Auth: &directory.WellKnownAuth{BearerTokenFile: "/run/secrets/docs"},
			Skills: []directory.WellKnownSkill{{ID: "search"}}},
		{AgentName: "SampleAgent"},
	}
	s, err := remote.Lookup(cfg, wk, "weather")
	if err != nil || s.Name != "Weather" || s.CardURL != "https://w.example.com" || s.Auth.APIKey != "k-123" || s.Source != "remote.agents[0]" ||
		s.Fallback == nil || s.Fallback.Skills[0].ID != "forecast" {
		t.Fatalf("Lookup(weather) = %+v, %v", s, err)
	}
	s, err = remote.Lookup(cfg, wk, "Docs")
	if err != nil || s.CardURL != "https://docs.example.com/card.json" || s.Auth.BearerTokenFile != "/run/secrets/docs" || s.Fallback.Skills[0].ID != "search" ||
		!strings.Contains(s.Source, "well-known") {
		t.Fatalf("Lookup(Docs) = %+v, %v", s, err)
	}
	if got := remote.Names(cfg, wk); !slices.Equal(got, []string{"Weather", "Docs"}) {
		t.Errorf("Names = %v", got)
	}
	_, err = remote.Lookup(cfg, wk, "SampleAgent")
	if !errors.Is(err, remote.ErrUnknownRemote) || !strings.Contains(err.Error(), "known: Weather, Docs") {
		t.Errorf("Lookup(SampleAgent) = %v, want unknown listing the remotes", err)
	}
	_, err = remote.Lookup(config.Default(), nil, "Weather")
	if !errors.Is(err, remote.ErrUnknownRemote) || !strings.Contains(err.Error(), "none is configured") {
		t.Errorf("Lookup with none configured = %v", err)
	}
}

// Serve refuses an unknown remote, or one whose credential file cannot be
// read, before it connects to anything.
func TestServeRefusesBeforeConnecting(t *testing.T) {
	cfg := config.Default()
	cfg.Bus.URL = "amqp://guest:guest@127.0.0.1:1/" // nothing listens: a dial would fail otherwise
	cfg.Directory.WellKnownFile = ""
	cfg.Remote.Agents = []config.RemoteAgent{{Name: "Weather", CardURL: "https://w.example.com", BearerTokenFile: filepath.Join(t.TempDir(), "missing")}}
	err := remote.Serve(context.Background(), cfg, []string{"Nope"}, nil)
	if !errors.Is(err, remote.ErrUnknownRemote) || !strings.Contains(err.Error(), `"Nope" (known: Weather)`) {
		t.Errorf("Serve(Nope) = %v", err)
	}
	err = remote.Serve(context.Background(), cfg, []string{"Weather"}, nil)
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "remote.agents[0].bearer_token_file") {
		t.Errorf("Serve(Weather) with a missing token file = %v", err)
	}
}
