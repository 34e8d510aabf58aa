// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
)

// Lookup returns the remote agent called name (case-insensitive): the
// entry of remote.agents, else the well-known entry with a url. A
// well-known entry of the same name gives the fallback card (its skills).
// An unknown name is ErrUnknownRemote, naming the remotes that are known.
func Lookup(cfg *config.Config, wellKnown []directory.WellKnownAgent, name string) (Spec, error) {
	var entry *directory.WellKnownAgent
	for i := range wellKnown {
		if strings.EqualFold(wellKnown[i].AgentName, name) {
			entry = &wellKnown[i]
		}
	}
	for i, a := range cfg.Remote.Agents {
		if strings.EqualFold(a.Name, name) {
			s := Spec{Name: a.Name, CardURL: a.CardURL, Auth: a, Source: fmt.Sprintf("remote.agents[%d]", i)}
			if entry != nil {
				s.Fallback = entry.Card()
			}
			return s, nil
		}
	}
	if entry != nil && entry.URL != "" {
		s := Spec{Name: entry.AgentName, CardURL: entry.URL, Source: fmt.Sprintf("well-known entry %q", entry.AgentName), Fallback: entry.Card()}
		if a := entry.Auth; a != nil {
			s.Auth = config.RemoteAgent{BearerTokenFile: a.BearerTokenFile, APIKeyFile: a.APIKeyFile, APIKeyHeader: a.APIKeyHeader}
		}
		return s, nil
	}
	known := Names(cfg, wellKnown)
	if len(known) == 0 {
		return Spec{}, fmt.Errorf("%w: %q (none is configured: declare one in remote.agents or as a well-known entry with a url)", ErrUnknownRemote, name)
	}
	return Spec{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownRemote, name, strings.Join(known, ", "))
}

// Names lists the remote agents of cfg and wellKnown, in that order, each once.
func Names(cfg *config.Config, wellKnown []directory.WellKnownAgent) []string {
	var names []string
	seen := func(n string) bool {
		return slices.ContainsFunc(names, func(m string) bool { return strings.EqualFold(m, n) })
	}
	for _, a := range cfg.Remote.Agents {
		if !seen(a.Name) {
			names = append(names, a.Name)
		}
	}
	for _, w := range wellKnown {
		if w.URL != "" && !seen(w.AgentName) {
			names = append(names, w.AgentName)
		}
	}
	return names
}
