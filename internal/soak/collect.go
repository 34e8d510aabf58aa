// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// collect reads, for every ledger task, its stored results (under its
// target, at the known task id or else every one of the session) and the
// notification turns about its target's tasks. The results of the tasks
// whose id is unknown are found by one scan of the sessions' keys, grouped
// by session and target (listResults): a scan per task would make the
// check grow with the square of the tasks.
func collect(ctx context.Context, m memory.Memory, s *Snapshot) (map[string]*Observed, error) {
	obs := make(map[string]*Observed, len(s.Entries))
	var listed map[string][]string // read at the first task whose id is unknown
	for sid, e := range s.Entries {
		o := &Observed{}
		turns, err := m.Turns(ctx, sid, 0, 0)
		if err != nil {
			return nil, fmt.Errorf("soak: read the conversation of %s: %w", sid, err)
		}
		for _, t := range turns {
			if t.Meta[caller.MetaKind] != caller.KindNotification || t.Meta[caller.MetaAgent] != e.Target {
				continue
			}
			o.Notes = append(o.Notes, Note{Task: memory.MetaValue(t.Meta, caller.MetaTaskID), Agent: t.Meta[caller.MetaAgent], State: t.Meta[caller.MetaState],
				Swept: t.Meta[caller.MetaOutcome] == caller.OutcomeSwept, Content: t.Content})
		}
		keys, err := knownResultKeys(e, s.Sent[sid], o.Notes)
		if err != nil {
			return nil, err
		}
		if keys == nil {
			if listed == nil {
				if listed, err = listResults(ctx, m, s); err != nil {
					return nil, err
				}
			}
			keys = listed[resultGroup(e.Session, e.Target)]
		}
		if o.Results, err = readResults(ctx, m, keys); err != nil {
			return nil, err
		}
		if task := s.Sent[sid]; task != "" && len(o.Results) == 0 {
			if o.Withdrawn, err = withdrawn(ctx, m, e.Caller, task); err != nil {
				return nil, err
			}
		}
		obs[sid] = o
	}
	return obs, nil
}

// reread reads the results found by collect again, into Again.
func reread(ctx context.Context, m memory.Memory, obs map[string]*Observed) error {
	for _, o := range obs {
		o.Again = o.Again[:0]
		for _, r := range o.Results {
			again, found, err := readResult(ctx, m, r.Key)
			if err != nil {
				return err
			}
			if found {
				o.Again = append(o.Again, again)
			}
		}
	}
	return nil
}

// knownResultKeys are the keys of e's results at its task id when known
// (sent, or named by a notification); nil when none is.
func knownResultKeys(e Entry, taskID string, notes []Note) ([]string, error) {
	ids := map[string]bool{}
	if taskID != "" {
		ids[taskID] = true
	}
	for _, n := range notes {
		ids[n.Task] = true
	}
	var keys []string
	for id := range ids {
		key, err := memory.ResultKey(e.Session, e.Target, id)
		if err != nil {
			return nil, fmt.Errorf("soak: result key of %s: %w", e.Session, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// listResults lists the result keys of the ledger's sessions with one scan
// (List of the prefix every session of the ledger shares), grouped by
// resultGroup of their session and agent.
func listResults(ctx context.Context, m memory.Memory, s *Snapshot) (map[string][]string, error) {
	root, _, _ := strings.Cut(memory.ResultKeyTemplate, "{session}")
	keys, err := m.List(ctx, root+commonPrefix(s))
	if err != nil {
		return nil, fmt.Errorf("soak: list the results of the sessions: %w", err)
	}
	out := map[string][]string{}
	for _, key := range keys {
		if session, agent, _, ok := memory.ParseResultKey(key); ok {
			g := resultGroup(session, agent)
			out[g] = append(out[g], key)
		}
	}
	return out, nil
}

// resultGroup names the results of session under agent in listResults.
func resultGroup(session, agent string) string { return session + "/" + agent }

// commonPrefix is the longest prefix of every session of the ledger.
func commonPrefix(s *Snapshot) string {
	prefix, first := "", true
	for sid := range s.Entries {
		if first {
			prefix, first = sid, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(sid) && prefix[n] == sid[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return prefix
}

// readResults reads the stored results at keys; a missing one is skipped.
func readResults(ctx context.Context, m memory.Memory, keys []string) ([]Stored, error) {
	var out []Stored
	for _, key := range keys {
		r, found, err := readResult(ctx, m, key)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, r)
		}
	}
	return out, nil
}

// readResult reads the stored result at key.
func readResult(ctx context.Context, m memory.Memory, key string) (Stored, bool, error) {
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return Stored{}, false, nil
	}
	if err != nil {
		return Stored{}, false, fmt.Errorf("soak: read %s: %w", key, err)
	}
	var sr caller.StoredResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return Stored{}, false, fmt.Errorf("soak: decode %s: %w", key, err)
	}
	r := Stored{Key: key, Task: sr.TaskID, State: string(sr.State), Text: sr.Text(), Late: sr.Late}
	if sr.Error != nil {
		r.Code = string(sr.Error.Code)
	}
	return r, true, nil
}

// withdrawn reports whether task's final claim is its caller's "unsent"
// (pkg/caller's claimUnsent): a task withdrawn, never published.
func withdrawn(ctx context.Context, m memory.Memory, callerName, task string) (bool, error) {
	key, err := memory.TaskClaimKey(callerName, task)
	if err != nil {
		return false, fmt.Errorf("soak: claim key of %s: %w", task, err)
	}
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("soak: read %s: %w", key, err)
	}
	return string(b) == "unsent", nil
}
