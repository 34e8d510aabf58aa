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

// DefaultTakeGrace is the default of Options.TakeGrace: how long past a
// task's startBy the sweeper waits for the take notice of an agent that
// took it just in time (it travels agent, broker, caller, working memory).
const DefaultTakeGrace = 5 * time.Second

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

// WaitBound is how long a task of req may wait in its queue to be taken:
// its WaitTimeout, else its target's default, else Options.DefaultWait,
// clamped to Options.MaxWait; 0 when it has no wait bound (or req's is
// negative). Target is taken as spelled (canonical after a Resolver).
func (c *Caller) WaitBound(req Request) time.Duration {
	wait, err := c.waitFor(req)
	if err != nil {
		return 0
	}
	return wait
}

// firstSweep is when the sweeper first looks at a task's first turn: past
// its startBy and the take grace when it has a wait bound (no agent took it
// by then, unless one said so), else at its deadline. The record keeps it
// (SweepFrom), as every replica must agree on it.
func (r *Record) firstSweep() time.Time {
	if r.StartBy.IsZero() || r.SweepFrom.IsZero() || r.SweepFrom.After(r.Deadline) {
		return r.Deadline
	}
	return r.SweepFrom
}

// earliestClaim is the earliest time the sweeper may claim a task's first
// turn: its first sweep, or, for a task with a wait bound taken at once, its
// run time and the take grace after its creation (markTaken).
func (r *Record) earliestClaim() time.Time {
	first := r.firstSweep()
	if r.StartBy.IsZero() || r.SweepFrom.IsZero() {
		return first
	}
	taken := r.CreatedAt.Add(r.Deadline.Sub(r.StartBy) + r.SweepFrom.Sub(r.StartBy))
	if taken.Before(first) {
		return taken
	}
	return first
}

// runEnd is when the run of a task with a wait bound that was taken at
// took is over for the sweeper: its run time and the take grace later,
// never past the deadline.
func (r *Record) runEnd(took time.Time) time.Time {
	end := took.Add(r.Deadline.Sub(r.StartBy) + r.SweepFrom.Sub(r.StartBy))
	if r.SweepFrom.IsZero() || end.After(r.Deadline) {
		return r.Deadline
	}
	return end
}

// markTaken records that an agent took task id from its queue (a status of
// it arrived) and when, for the sweeper, which then looks at the task once
// its run time is over (not at the end of the wait); only for a task with
// a wait bound, once per process. A failure is not an error of the status:
// the sweeper then says EXPIRED_IN_QUEUE where it could have said TIMEOUT.
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
	now := c.opts.Now()
	ttl := rec.Deadline.Sub(now) + c.opts.ResultTTL
	first, err := c.opts.Memory.SetIfAbsent(ctx, key, []byte(now.UTC().Format(time.RFC3339Nano)), ttl)
	if err == nil && first && rec.runEnd(now).Before(rec.firstSweep()) {
		// Still pending (a score is added only while it is): its run ends first.
		if _, pending, perr := c.opts.Memory.IndexScore(ctx, c.pending, id); perr == nil && pending {
			err = c.opts.Memory.IndexAdd(ctx, c.pending, id, rec.runEnd(now).UnixMilli())
		}
	}
	if err != nil {
		c.log.Debug("take of a task not recorded", zap.String("task", id), zap.Error(err))
	}
}

// taken reports whether an agent was heard to take rec's task, and when
// its run is over for the sweeper (runEnd).
func (c *Caller) taken(ctx context.Context, rec *Record) (bool, time.Time, error) {
	key, err := memory.TaskTakenKey(c.opts.Name, rec.TaskID)
	if err != nil {
		return false, time.Time{}, err
	}
	v, err := c.opts.Memory.Get(ctx, key)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return false, time.Time{}, nil
	case err != nil:
		return false, time.Time{}, err
	}
	took, err := time.Parse(time.RFC3339Nano, string(v))
	if err != nil {
		return true, rec.Deadline, nil
	}
	return true, rec.runEnd(took), nil
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
