// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// HistoryRefused is the status of a call the caller refused before publishing
// it (CYCLE_DETECTED, DEPTH_EXCEEDED, AGENT_NOT_FOUND, FORBIDDEN, BUSY, …).
// Every other entry has a result status: SUCCESS, PARTIAL, ERROR or TIMEOUT.
const HistoryRefused = "REFUSED"

// HistoryWaiting is the status of a call whose agent asked a question and
// waits for the answer; the task's outcome replaces the entry.
const HistoryWaiting = "WAITING"

// HistoryEntry is one call in a session's call history — its audit
// record — stored at session/<sessionId>/calls/<taskId> for the caller's
// AuditTTL (7 days by default, however long the result itself is kept), and
// exported when the caller is told to (AuditStreamMaxLen, AuditWriter). Its
// error message and previews are redacted (passwords, tokens, API keys,
// configured patterns).
type HistoryEntry struct {
	// Time is when the outcome was recorded; CreatedAt when the call was made.
	Time      time.Time `json:"time"`
	CreatedAt time.Time `json:"createdAt"`
	// TaskID is the task's id; a refused call gets an id of its own.
	TaskID    string `json:"taskId"`
	SessionID string `json:"sessionId"`
	Caller    string `json:"caller"`
	Target    string `json:"target"`
	Skill     string `json:"skill"`
	// Chain is the call chain from the origin to the caller.
	Chain []string `json:"chain,omitempty"`
	// Status is SUCCESS, PARTIAL, ERROR, TIMEOUT, REFUSED or WAITING; State the A2A task state.
	Status string        `json:"status"`
	State  a2a.TaskState `json:"state,omitempty"`
	Code   a2a.ErrorCode `json:"code,omitempty"`
	// Error is the error message, redacted and truncated.
	Error string `json:"error,omitempty"`
	// Task is a preview of the task's request (its text, else its input),
	// Output one of its result (the message text, else the artifacts'; the
	// question of a task that waits for input): redacted, white space made
	// single spaces, cut to Options.PreviewRunes.
	Task   string `json:"task,omitempty"`
	Output string `json:"output,omitempty"`
	// DurationMs is the time from the call to its outcome.
	DurationMs int64 `json:"durationMs"`
	// Late is true for a result that arrived after the task had timed out
	// (it replaces the TIMEOUT entry).
	Late bool `json:"late,omitempty"`
}

// Duration is the time from the call to its outcome.
func (e *HistoryEntry) Duration() time.Duration {
	return time.Duration(e.DurationMs) * time.Millisecond
}

// History returns the call history of a session, oldest call first: every
// call made in it (by any caller) whose entry has not expired (AuditTTL).
func History(ctx context.Context, mem memory.Store, sessionID string) ([]HistoryEntry, error) {
	prefix, err := memory.CallHistoryPrefix(sessionID)
	if err != nil {
		return nil, fmt.Errorf("caller: history of session %q: %w", sessionID, err)
	}
	keys, err := mem.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("caller: history of session %q: %w", sessionID, err)
	}
	values, err := mem.GetMany(ctx, keys...) // one round trip, not one per entry
	if err != nil {
		return nil, fmt.Errorf("caller: history of session %q: %w", sessionID, err)
	}
	out := make([]HistoryEntry, 0, len(keys))
	for i, b := range values {
		if b == nil {
			continue // expired since the listing
		}
		var e HistoryEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("caller: history of session %q: decode %q: %w", sessionID, keys[i], err)
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b HistoryEntry) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), a.Time.Compare(b.Time), cmp.Compare(a.TaskID, b.TaskID))
	})
	return out, nil
}

// PendingTasks returns up to limit ids of the tasks the caller called name
// has published and not finalized yet (by any replica), read from m — the
// pending index its deadline sweeper reads. Empty when it has none.
func PendingTasks(ctx context.Context, m memory.Indexes, name string, limit int) ([]string, error) {
	index, err := memory.PendingIndex(name)
	if err != nil {
		return nil, fmt.Errorf("caller %q: read pending tasks: %w", name, err)
	}
	members, err := m.IndexRange(ctx, index, math.MaxInt64, limit)
	if err != nil {
		return nil, fmt.Errorf("caller %q: read pending tasks: %w", name, err)
	}
	ids := make([]string, len(members))
	for i, mb := range members {
		ids[i] = mb.Member
	}
	return ids, nil
}
