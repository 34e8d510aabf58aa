// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// TaskInfo is what a caller knows of a task it invoked, read from working
// memory: its record, whether it is still pending, the turn it is in, the
// question it waits on and, once it ended, its stored outcome.
type TaskInfo struct {
	// Record is the task's record; its Deadline is the current turn's
	// while a later turn runs (the first turn's otherwise).
	Record
	// Pending is true until the task's final outcome is stored (so also
	// while it waits for input).
	Pending bool
	// Result is the stored outcome; nil while the task is pending, and
	// once the outcome expired (ResultTTL) while its record lives on.
	Result *StoredResult
	// Asked is, while the task waits for input, the stored question of its
	// agent (state input-required or auth-required, Question, AnswerBy);
	// nil otherwise (Caller.Reply answers it).
	Asked *StoredResult
	// Turn is the task's current turn: 0 for its first request, n once the
	// caller answered n questions.
	Turn int
}

// Expired reports whether the task ended but its outcome is no longer stored.
func (t *TaskInfo) Expired() bool { return !t.Pending && t.Result == nil }

// WaitingForInput reports whether the task waits for the caller's answer to
// the question in Asked (Caller.Reply answers it).
func (t *TaskInfo) WaitingForInput() bool { return t.Asked != nil }

// Task returns what the caller knows of the task taskID, which it (any
// replica of it) invoked: an error wrapping ErrUnknownTask when it has no
// record of it (never invoked by this caller's name, withdrawn, or expired).
func (c *Caller) Task(ctx context.Context, taskID string) (*TaskInfo, error) {
	if err := a2a.ValidateTaskID(taskID); err != nil {
		return nil, fmt.Errorf("caller %q: task %q: %w: %w", c.opts.Name, taskID, ErrUnknownTask, err)
	}
	rec, err := c.loadRecord(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("caller %q: task %s: %w", c.opts.Name, taskID, err)
	}
	if rec == nil {
		return nil, fmt.Errorf("caller %q: task %s: %w", c.opts.Name, taskID, ErrUnknownTask)
	}
	// The pending index first: an answer leaves it in the batch that stores
	// the outcome, a TIMEOUT after it, so a task found not pending has its
	// outcome stored (or expired) when the result is read next.
	_, pending, err := c.opts.Memory.IndexScore(ctx, c.pending, taskID)
	if err != nil {
		return nil, fmt.Errorf("caller %q: task %s: read pending index: %w", c.opts.Name, taskID, err)
	}
	info := &TaskInfo{Record: *rec, Pending: pending}
	var res StoredResult
	found, err := getJSON(ctx, c.opts.Memory, rec.MemoryKey, &res)
	if err != nil {
		return nil, fmt.Errorf("caller %q: task %s: %w", c.opts.Name, taskID, err)
	}
	switch {
	case !found:
	case !a2a.WaitsForInput(res.State):
		info.Pending, info.Result, info.Turn = false, &res, res.Turn // a TIMEOUT stored, its pending entry not yet cleared
	default:
		at, err := c.locate(ctx, rec, &res)
		if err != nil {
			return nil, fmt.Errorf("caller %q: task %s: %w", c.opts.Name, taskID, err)
		}
		info.Pending, info.Turn = true, at.turn
		switch {
		case at.waiting():
			info.Asked = &res
		case at.start != nil && at.start.By == startReply:
			info.Deadline = at.start.Deadline // the running turn's, not the first's
		}
	}
	return info, nil
}

// Watch follows one task from before its request is published
// (InvokeWatched), so that none of its status updates slips by. Close it
// when done.
type Watch struct {
	c      *Caller
	taskID string
	inv    Invocation
	events chan event
	once   sync.Once
}

// InvokeWatched is Invoke with the task watched from before its publish:
// the returned Watch's Wait sees every status update this process receives
// for it (the request asks for them: Request.Stream is set) and its outcome.
// When Invoke would fail there is no Watch, except with ErrOutcomeUnknown,
// which is returned with the Invocation and a Watch as the task is kept.
func (c *Caller) InvokeWatched(ctx context.Context, req Request) (_ Invocation, _ *Watch, err error) {
	defer func() { c.recordRefusal(ctx, req, err) }() // a refused call is an outcome too (audit)
	if c.isClosed() {
		return Invocation{}, nil, ErrClosed
	}
	req.Stream = true
	tr, rec, err := c.buildRequest(ctx, req)
	if err != nil {
		return Invocation{}, nil, err
	}
	w := &Watch{c: c, taskID: rec.TaskID, events: c.waiters.add(rec.TaskID)}
	inv, err := c.send(ctx, tr, rec, req.Trace)
	if err != nil && !errors.Is(err, ErrOutcomeUnknown) {
		w.Close()
		return Invocation{}, nil, err
	}
	w.inv = inv
	return inv, w, err
}

// Invocation is the watched task.
func (w *Watch) Invocation() Invocation { return w.inv }

// Wait blocks until the task's outcome is stored, as Caller.Wait does, and
// passes its status updates to onStatus (may be nil). It ends early with
// ctx (an error wrapping ctx.Err()) or ErrClosed; it may be called again
// after, until Close.
func (w *Watch) Wait(ctx context.Context, onStatus StatusFunc) (*Outcome, error) {
	if out, _, err := w.c.settle(ctx, w.inv.TaskID, w.events, onStatus); err != nil || out != nil {
		return out, err // an outcome whose event was dropped from a full buffer, or that came before Wait
	}
	return w.c.wait(ctx, w.inv.TaskID, w.inv.Deadline, w.events, onStatus)
}

// Close stops watching. Idempotent.
func (w *Watch) Close() {
	w.once.Do(func() { w.c.waiters.remove(w.taskID, w.events) })
}
