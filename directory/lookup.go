// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxSuggestions is how many closest names an AGENT_NOT_FOUND error names.
const maxSuggestions = 3

// Lookup returns the agent called name, ignoring case; Entry.Name is its canonical spelling.
func (d *Directory) Lookup(name string) (Entry, bool) { return d.reg.get(name) }

// List returns the agents f selects, sorted by name (ignoring case). The
// listing of every agent (the zero Filter) is built once after a change and
// shared by the calls until the next: treat the slice, like its entries, as read-only.
func (d *Directory) List(f Filter) []Entry { return d.reg.list(f) }

// Closest returns up to n known names nearest to name by edit distance,
// ignoring case, nearest first (ties in name order); for AGENT_NOT_FOUND.
func (d *Directory) Closest(name string, n int) []string {
	return text.Nearest(name, d.reg.names(), n, -1)
}

// Resolve returns the canonical name of agent if it is known and its card
// lists skill. An unknown agent is an *a2a.Error AGENT_NOT_FOUND naming the
// closest known names; a known one without the skill is SKILL_NOT_SUPPORTED
// listing its skills. Any listed agent resolves, running or not: its task
// waits in its durable queue. It answers from what the directory knows now,
// without waiting (see PatientResolver); it satisfies caller.Resolver.
func (d *Directory) Resolve(_ context.Context, agent, skill string) (string, error) {
	return d.resolve(agent, skill)
}

func (d *Directory) resolve(agent, skill string) (string, error) {
	e, ok := d.Lookup(agent)
	if !ok {
		known := "no agents are known"
		if c := d.Closest(agent, maxSuggestions); len(c) > 0 {
			known = "closest known agents: " + strings.Join(c, ", ")
		}
		return "", a2a.NewError(a2a.CodeAgentNotFound, "agent %q is not in the directory; %s", agent, known)
	}
	if !e.HasSkill(skill) {
		skills := "it has none"
		if ids := e.SkillIDs(); len(ids) > 0 {
			skills = "its skills: " + strings.Join(ids, ", ")
		}
		return "", a2a.NewError(a2a.CodeSkillNotSupported, "agent %q has no skill %q; %s", e.Name, skill, skills)
	}
	return e.Name, nil
}

// DefaultVetWait is how long a PatientResolver of the binaries waits for an
// agent it does not know yet to announce itself (directory.vet_wait).
const DefaultVetWait = 2 * time.Second

// PatientResolver resolves through a directory that may have just started:
// an agent it does not know yet gets up to Wait to answer the directory's
// discovery query before it is refused as AGENT_NOT_FOUND. It satisfies
// caller.Resolver.
type PatientResolver struct {
	// Directory answers the look-ups.
	Directory *Directory
	// Wait bounds how long an unknown agent is waited for.
	Wait time.Duration
}

// Resolve is Directory.Resolve, retried on every change until Wait passes or
// ctx is done, whichever comes first. A miss of a directory with QueryOnMiss
// sends a discovery query first. A known agent costs no timer: Wait starts
// only on a miss.
func (r PatientResolver) Resolve(ctx context.Context, agent, skill string) (string, error) {
	name, err := r.Directory.resolve(agent, skill)
	if a2a.CodeOf(err) != a2a.CodeAgentNotFound {
		return name, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.Wait)
	defer cancel()
	for asked := false; ; {
		name, err := r.Directory.resolve(agent, skill)
		if a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			return name, err
		}
		if !asked && r.Directory.opts.QueryOnMiss {
			r.Directory.queryOnMiss(ctx)
			asked = true
			continue // the answers may have come in while the query went out
		}
		select {
		case <-r.Directory.Changes():
		case <-ctx.Done():
			return name, err
		}
	}
}
