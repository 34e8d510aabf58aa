// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// collect reads, for every ledger task, its stored results (under its
// target, at the known task id or else every one of the session) and the
// notification turns about its target's tasks.
func collect(ctx context.Context, m memory.Memory, s *Snapshot) (map[string]*Observed, error) {
	obs := make(map[string]*Observed, len(s.Entries))
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
		if o.Results, err = readResults(ctx, m, e, s.Sent[sid], o.Notes); err != nil {
			return nil, err
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

// readResults reads the results stored for e's task: at its task id when
// known (sent, or named by a notification), else every result of the session under its target.
func readResults(ctx context.Context, m memory.Memory, e Entry, taskID string, notes []Note) ([]Stored, error) {
	ids := map[string]bool{}
	if taskID != "" {
		ids[taskID] = true
	}
	for _, n := range notes {
		ids[n.Task] = true
	}
	var keys []string
	if len(ids) > 0 {
		for id := range ids {
			key, err := memory.ResultKey(e.Session, e.Target, id)
			if err != nil {
				return nil, fmt.Errorf("soak: result key of %s: %w", e.Session, err)
			}
			keys = append(keys, key)
		}
	} else {
		prefix, err := memory.ResultPrefix(e.Session, e.Target)
		if err != nil {
			return nil, err
		}
		if keys, err = m.List(ctx, prefix); err != nil {
			return nil, fmt.Errorf("soak: list the results of %s: %w", e.Session, err)
		}
	}
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
