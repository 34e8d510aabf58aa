// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// sweepLoop looks for overdue tasks every SweepInterval until ctx ends.
func (c *Caller) sweepLoop(ctx context.Context) error {
	component.Every(ctx.Done(), c.opts.SweepInterval, func() {
		if err := c.sweep(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("deadline sweep failed", zap.Error(err))
		}
	})
	return nil
}

// sweep times out every pending task of this caller whose deadline passed,
// at most sweepBatch per sweep (the rest wait for the next one). Replicas may
// sweep at once: the claim and the once-only notification keep the outcome
// single.
func (c *Caller) sweep(ctx context.Context) error {
	overdue, err := c.opts.Memory.IndexRange(ctx, c.pending, c.opts.Now().UnixMilli(), sweepBatch)
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range overdue {
		if err := c.timeout(ctx, m.Member); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sweepBatch bounds the tasks one sweep times out.
const sweepBatch = 1000

// timeout ends a task overdue in the pending index. A first turn with a
// wait bound (queuewait.go) that no agent was heard to take by its startBy
// ends EXPIRED_IN_QUEUE, and no cancel is sent; one that an agent took is
// put back at its deadline, and ends TIMEOUT there. A task that runs
// (its first turn, or a later one its caller's answer started) gets a
// stored and notified TIMEOUT, its waiters are woken and its target is
// sent a cancel. A task that waits for input past Options.InputTimeout
// ends TIMEOUT too, saying nobody answered (no agent runs it: no cancel).
// A task found not overdue after all (its entry was moved by a turn that
// started meanwhile) is put back at its due time.
func (c *Caller) timeout(ctx context.Context, taskID string) error {
	rec, err := c.loadRecord(ctx, taskID)
	if err != nil {
		return err
	}
	if rec == nil {
		return c.opts.Memory.IndexRemove(ctx, c.pending, taskID) // its record expired: nothing to time out
	}
	w, err := c.loadWait(ctx, rec)
	if err != nil {
		return err
	}
	turn, allowed, expired := 0, rec.Deadline.Sub(rec.CreatedAt), false
	if w == nil && !rec.StartBy.IsZero() { // a wait bound apart from the run (queuewait.go)
		taken, runEnd, err := c.taken(ctx, rec)
		switch {
		case err != nil:
			return err
		case taken && c.opts.Now().Before(runEnd):
			return c.opts.Memory.IndexAdd(ctx, c.pending, taskID, runEnd.UnixMilli()) // it runs: its run time is not over
		}
		expired, allowed = !taken, rec.Deadline.Sub(rec.StartBy)
	}
	if w != nil { // it asked: it waits, or a later turn runs
		start, err := c.loadStart(ctx, rec, w.Turn+1)
		switch {
		case err != nil:
			return err
		case start == nil && c.opts.Now().Before(w.AnswerBy):
			return c.opts.Memory.IndexAdd(ctx, c.pending, taskID, w.AnswerBy.UnixMilli())
		case start == nil:
			if _, err := c.endWait(ctx, rec, w, startTimeout); err != nil { // question.go
				return err
			}
			return c.opts.Memory.IndexRemove(ctx, c.pending, taskID) // ended now, or answered or ended just before
		case start.By != startReply: // its wait ended: its outcome is stored
			return c.opts.Memory.IndexRemove(ctx, c.pending, taskID)
		case c.opts.Now().Before(start.Deadline):
			return c.opts.Memory.IndexAdd(ctx, c.pending, taskID, start.Deadline.UnixMilli())
		}
		turn, allowed = w.Turn+1, start.Deadline.Sub(start.At)
	}
	te := &a2a.TaskError{TaskID: taskID, Agent: rec.Target, State: a2a.TaskStateFailed, Code: a2a.CodeTimeout, Retryable: true, Turn: turn,
		Message: "no answer from " + rec.Target + " within the deadline of " + allowed.Round(time.Millisecond).String(),
		Time:    c.opts.Now()}
	switch {
	case expired:
		te = expiredInQueue(rec, c.opts.Now())
	case turn == 0 && !rec.StartBy.IsZero():
		te.Message = "no answer from " + rec.Target + " within its run time of " + allowed.Round(time.Millisecond).String() + " after it took the task"
	}
	s := &StoredResult{TaskID: taskID, Agent: rec.Target, State: te.State, Status: te.Status(), Error: te.AsError(), Turn: turn}
	out, err := c.finalize(ctx, s, claimTimeout)
	if err != nil {
		return err
	}
	if out == nil { // another outcome won: nothing is pending any more
		return c.opts.Memory.IndexRemove(ctx, c.pending, taskID)
	}
	c.observeSwept(rec)
	var m *bus.Message // the TIMEOUT as the agent would have sent it, for the other replicas
	if env, err := c.opts.Codec.Encode(te, a2a.Trace{}); err == nil {
		m = &bus.Message{Envelope: env}
	}
	c.tell(ctx, taskID, event{outcome: out}, m)
	if expired {
		// No agent is known to have it: the broker dropped it, or an agent
		// dequeuing it now refuses it. One that took it without a word may
		// still answer, and its result replaces this one, late.
		return nil
	}
	if err := c.sendCancel(ctx, rec, "deadline passed"); err != nil && !errors.Is(err, bus.ErrUnroutable) {
		c.log.Warn("cancel after timeout not sent", zap.String("task", taskID), zap.Error(err))
	}
	return nil
}
