// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// maxPendingRead bounds the unfinished tasks read of one caller.
const maxPendingRead = 1000

// stateSubmitted is the state shown for a task published and not finished.
const stateSubmitted = "submitted"

// task is one row of a session's tasks: a finished call from the call
// history, or an unfinished one from a caller's pending index.
type task struct {
	ID, Caller, Target, Skill string
	Session                   string
	Chain                     []string
	State, Status, Code, Err  string
	Created                   time.Time
	Duration                  time.Duration
	InFlight, Late            bool
}

// shortState is an A2A task state as people say it: "completed", "input-required".
func shortState(s a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

// fromHistory is the row of a call history entry.
func fromHistory(e caller.HistoryEntry) task {
	t := task{ID: e.TaskID, Caller: e.Caller, Target: e.Target, Skill: e.Skill, Session: e.SessionID, Chain: e.Chain, State: shortState(e.State),
		Status: e.Status, Code: string(e.Code), Err: e.Error, Created: e.CreatedAt, Duration: e.Duration(), Late: e.Late}
	if e.State == "" {
		t.State = strings.ToLower(e.Status) // REFUSED, WAITING
	}
	return t
}

// sessionTasks returns the session's tasks, oldest first: its call history
// and the unfinished tasks of the watched callers and of the callers of
// its history.
func (c *Console) sessionTasks(ctx context.Context, session string) ([]task, error) {
	hist, err := caller.History(ctx, c.opts.Memory, session)
	if err != nil {
		return nil, err
	}
	out := make([]task, 0, len(hist))
	seen := make(map[string]bool, len(hist))
	for _, e := range hist {
		out = append(out, fromHistory(e))
		seen[e.TaskID] = true
	}
	pending, err := c.inFlight(ctx, c.callersOf(hist), func(id string) bool { return seen[id] }, func(r *caller.Record) bool { return r.SessionID == session })
	if err != nil {
		return nil, err
	}
	out = append(out, pending...)
	slices.SortStableFunc(out, func(a, b task) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

// sessionTask returns task id of session: its call history entry, else
// the unfinished task of a watched caller.
func (c *Console) sessionTask(ctx context.Context, session, id string) (task, bool, error) {
	key, err := memory.CallHistoryKey(session, id)
	if err != nil {
		return task{}, false, fmt.Errorf("console: task %s: %w", id, err)
	}
	b, err := c.opts.Memory.Get(ctx, key)
	switch {
	case err == nil:
		var e caller.HistoryEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return task{}, false, fmt.Errorf("console: decode the call history entry of task %s: %w", id, err)
		}
		return fromHistory(e), true, nil
	case !errors.Is(err, memory.ErrNotFound):
		return task{}, false, fmt.Errorf("console: task %s: %w", id, err)
	}
	pending, err := c.inFlight(ctx, c.opts.Callers, func(t string) bool { return t != id }, func(r *caller.Record) bool { return r.SessionID == session })
	if err != nil || len(pending) == 0 {
		return task{}, false, err
	}
	return pending[0], true, nil
}

// callersOf are the watched callers and the callers of hist.
func (c *Console) callersOf(hist []caller.HistoryEntry) []string {
	callers := slices.Clone(c.opts.Callers)
	for _, e := range hist {
		if e.Caller != "" && !slices.Contains(callers, e.Caller) {
			callers = append(callers, e.Caller)
		}
	}
	return callers
}

// inFlight returns the unfinished tasks of callers that keep selects;
// the ids skip says are not read (nil: none).
func (c *Console) inFlight(ctx context.Context, callers []string, skip func(id string) bool, keep func(*caller.Record) bool) ([]task, error) {
	var out []task
	for _, name := range callers {
		ids, err := caller.PendingTasks(ctx, c.opts.Memory, name, maxPendingRead)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if skip != nil && skip(id) {
				continue
			}
			r, err := loadRecord(ctx, c.opts.Memory, name, id)
			if err != nil {
				return nil, err
			}
			if r == nil || !keep(r) {
				continue
			}
			out = append(out, fromRecord(r, c.opts.Now()))
		}
	}
	return out, nil
}

// fromRecord is the row of an unfinished task.
func fromRecord(r *caller.Record, now time.Time) task {
	return task{ID: r.TaskID, Caller: r.Caller, Target: r.Target, Skill: r.Skill, Session: r.SessionID, Chain: r.Chain, State: stateSubmitted,
		Created: r.CreatedAt, Duration: now.Sub(r.CreatedAt), InFlight: true}
}

// loadRecord reads the record of task id of caller name; nil when it is gone.
func loadRecord(ctx context.Context, m memory.Store, name, id string) (*caller.Record, error) {
	key, err := memory.TaskRecordKey(name, id)
	if err != nil {
		return nil, fmt.Errorf("console: task %s of %s: %w", id, name, err)
	}
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("console: task %s of %s: %w", id, name, err)
	}
	var r caller.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("console: decode task %s of %s: %w", id, name, err)
	}
	return &r, nil
}

// loadResult reads the stored result of task id of agent in session; nil when there is none.
func loadResult(ctx context.Context, m memory.Store, session, agent, id string) (*caller.StoredResult, error) {
	key, err := memory.ResultKey(session, agent, id)
	if err != nil {
		return nil, fmt.Errorf("console: result of task %s: %w", id, err)
	}
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("console: result of task %s: %w", id, err)
	}
	var s caller.StoredResult
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("console: decode result of task %s: %w", id, err)
	}
	return &s, nil
}

// node is one agent of a session's tree of calls: who called it (the path
// from the origin) and how many tasks it got that way.
type node struct {
	Name     string
	Tasks    int
	Failed   int
	Children []*node
}

// callTree builds the tree of calls from the tasks' call chains: origin →
// agent → nested calls.
func callTree(tasks []task) []*node {
	var roots []*node
	child := func(list *[]*node, name string) *node {
		for _, n := range *list {
			if n.Name == name {
				return n
			}
		}
		n := &node{Name: name}
		*list = append(*list, n)
		return n
	}
	for _, t := range tasks {
		path := t.Chain
		if len(path) == 0 && t.Caller != "" {
			path = []string{t.Caller}
		}
		list := &roots
		var n *node
		for _, name := range append(slices.Clone(path), t.Target) {
			n = child(list, name)
			list = &n.Children
		}
		if n != nil {
			n.Tasks++
			if t.Code != "" {
				n.Failed++
			}
		}
	}
	return roots
}

// bar is one task of the waterfall, in per cent of the page's time span.
type bar struct {
	Task        task
	Left, Width float64
	Y           int
}

// waterfall places tasks on one time axis, from the first start to the last end.
func waterfall(tasks []task) (bars []bar, span time.Duration) {
	if len(tasks) == 0 {
		return nil, 0
	}
	start, end := tasks[0].Created, tasks[0].Created.Add(tasks[0].Duration)
	for _, t := range tasks {
		start = minTime(start, t.Created)
		end = maxTime(end, t.Created.Add(t.Duration))
	}
	span = max(end.Sub(start), time.Millisecond)
	for i, t := range tasks {
		left := float64(t.Created.Sub(start)) / float64(span) * 100
		width := min(max(float64(t.Duration)/float64(span)*100, 0.5), 100)
		left = min(left, 100-width) // a short bar at the end stays on the axis
		bars = append(bars, bar{Task: t, Left: left, Width: width, Y: i * barHeight})
	}
	return bars, span
}

// barHeight is the height of one waterfall row, in SVG units.
const barHeight = 18

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
