// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Waiting is not running: a task may wait in its queue for an agent that is
// not running yet (a KEDA job that starts for it) far longer than it may
// run. A call with a wait bound (Request.WaitTimeout, the target's default,
// Options.DefaultWait) sends startBy = now + the wait and deadline =
// startBy + the timeout: the broker drops the request at startBy, and an
// agent runs it for the timeout from when it took it. The sweeper tells the
// two ends apart: EXPIRED_IN_QUEUE when no agent was heard of by startBy
// (plus takeGrace), TIMEOUT when an agent took the task (its status reached
// the caller: the take notice) and did not answer by the deadline.

// DefaultMaxWait is the default of Options.MaxWait.
const DefaultMaxWait = time.Hour

// takeGrace is how long past a task's startBy the sweeper waits for the
// take notice of an agent that took it just in time.
const takeGrace = 5 * time.Second

// WaitBounds is implemented by a Resolver that knows how long a task may
// wait for a target to take it, for targets with a default of their own
// (the directory: its well-known agents, which may not be running).
type WaitBounds interface {
	// WaitBound returns agent's own wait bound; ok is false when it has none.
	WaitBound(agent string) (wait time.Duration, ok bool)
}

// waitFor is the wait bound of req, whose Target is canonical: its own, else
// the target's default (WaitBounds), else Options.DefaultWait; at most
// Options.MaxWait. 0: no wait bound apart from the timeout.
func (c *Caller) waitFor(req Request) (time.Duration, error) {
	wait := req.WaitTimeout
	switch {
	case wait < 0:
		return 0, fmt.Errorf("%w: waitTimeout %s is negative", ErrInvalidRequest, wait)
	case wait == 0:
		wait = c.opts.DefaultWait
		if wb, ok := c.opts.Resolver.(WaitBounds); ok {
			if d, ok := wb.WaitBound(req.Target); ok {
				wait = d
			}
		}
	}
	return min(wait, c.opts.MaxWait), nil
}

// firstSweep is when the sweeper first looks at a task's first turn: past
// its startBy and the take grace when it has a wait bound (no agent took it
// by then, unless one said so), else at its deadline.
func (r *Record) firstSweep() time.Time {
	if r.StartBy.IsZero() {
		return r.Deadline
	}
	return r.StartBy.Add(takeGrace)
}

// markTaken records that an agent took task id from its queue (a status of
// it arrived), for the sweeper; only for a task with a wait bound, once per
// process. A failure is not an error of the status: the sweeper then says
// EXPIRED_IN_QUEUE where it could have said TIMEOUT.
func (c *Caller) markTaken(ctx context.Context, id string) {
	if !c.local.takeOnce(id) {
		return
	}
	rec, err := c.loadRecord(ctx, id)
	if err != nil || rec == nil || rec.StartBy.IsZero() {
		return
	}
	key, err := memory.TaskTakenKey(c.opts.Name, id)
	if err != nil {
		return
	}
	ttl := rec.Deadline.Sub(c.opts.Now()) + c.opts.ResultTTL
	if _, err := c.opts.Memory.SetIfAbsent(ctx, key, []byte(c.opts.Now().UTC().Format(time.RFC3339Nano)), ttl); err != nil {
		c.log.Debug("take of a task not recorded", zap.String("task", id), zap.Error(err))
	}
}

// taken reports whether an agent was heard to take rec's task.
func (c *Caller) taken(ctx context.Context, rec *Record) (bool, error) {
	key, err := memory.TaskTakenKey(c.opts.Name, rec.TaskID)
	if err != nil {
		return false, err
	}
	switch _, err := c.opts.Memory.Get(ctx, key); {
	case errors.Is(err, memory.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// expiredInQueue is the outcome of a task no agent was heard to take within
// its wait bound.
func expiredInQueue(rec *Record, now time.Time) *a2a.TaskError {
	queue, _ := a2a.TaskRoutingKey(rec.Target)
	return &a2a.TaskError{TaskID: rec.TaskID, Agent: rec.Target, State: a2a.TaskStateFailed, Code: a2a.CodeExpiredInQueue, Retryable: true,
		Message: fmt.Sprintf("no agent took the task from %s within its wait of %s: nothing was heard from %s (is it running, or does a job scale on its queue?)",
			queue, rec.StartBy.Sub(rec.CreatedAt).Round(time.Millisecond), rec.Target),
		Time: now}
}
