// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"slices"
	"strings"

	"github.com/a2abus/a2abus/pkg/guard"
)

// Roster is who a deployment runs: its agents (which may also delegate) and
// its plain callers (CLI users, chat front ends).
type Roster struct {
	// Agents are served agents, e.g. from the well-known file, the running
	// directory and --agent flags.
	Agents []string
	// Callers are callers that serve nothing.
	Callers []string
	// MayCall says whether caller may call target (the policy); nil allows all.
	MayCall func(caller, target string) bool
	// Users lists the broker users, as identity.users entries "user=Name".
	Users []string
}

// Principals lists the roster's principals: every agent serves its tasks
// and may call the agents the policy lets it; every caller may call the
// agents the policy lets it. Names are deduplicated case-insensitively; a
// name mapped to a user by Users connects as that user.
func (r Roster) Principals() []Principal {
	agents := dedupe(r.Agents)
	userOf := map[string]string{}
	for _, e := range r.Users {
		if u, n, ok := strings.Cut(e, "="); ok {
			userOf[strings.ToLower(strings.TrimSpace(n))] = strings.TrimSpace(u)
		}
	}
	targets := func(caller string) []string {
		var out []string
		for _, t := range agents {
			if r.MayCall == nil || r.MayCall(caller, t) {
				out = append(out, t)
			}
		}
		return out
	}
	var ps []Principal
	for _, a := range agents {
		ps = append(ps, Principal{Name: a, User: userOf[strings.ToLower(a)], Agent: true, Caller: true, Targets: targets(a)})
	}
	for _, c := range dedupe(r.Callers) {
		if slices.ContainsFunc(agents, func(a string) bool { return strings.EqualFold(a, c) }) {
			continue // an agent is a caller already
		}
		ps = append(ps, Principal{Name: c, User: userOf[strings.ToLower(c)], Caller: true, Targets: targets(c)})
	}
	return ps
}

func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" && !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n) }) {
			out = append(out, n)
		}
	}
	return out
}

// PolicyNames returns the names the rules of a policy spell out (patterns
// left out): the callers of its rules, and the targets of their allow
// lists, which are agents. A deployment's policy section is so the one
// place that says both who runs and who may call whom (a2abus access plan).
func PolicyNames(p guard.Policy) (callers, targets []string) {
	for _, r := range p.Rules {
		if !isPattern(r.Caller) {
			callers = append(callers, r.Caller)
		}
		if r.NoCalls {
			continue
		}
		for _, t := range r.Allow {
			if !isPattern(t) {
				targets = append(targets, t)
			}
		}
	}
	return dedupe(callers), dedupe(targets)
}

func isPattern(name string) bool { return strings.ContainsAny(name, "*?") }
