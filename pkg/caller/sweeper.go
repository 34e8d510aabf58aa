package caller

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// sweepLoop looks for overdue tasks every SweepInterval until ctx ends.
func (c *Caller) sweepLoop(ctx context.Context) error {
	t := time.NewTicker(c.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := c.sweep(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("deadline sweep failed", zap.Error(err))
			}
		}
	}
}

// sweep times out every pending task of this caller whose deadline passed.
// Replicas may sweep at once: the claim and the once-only notification keep
// the outcome single.
func (c *Caller) sweep(ctx context.Context) error {
	keys, err := c.opts.Memory.List(ctx, pendingPrefix(c.opts.Name))
	if err != nil {
		return err
	}
	now := c.opts.Now()
	var errs []error
	for _, k := range keys {
		raw, err := c.opts.Memory.Get(ctx, k)
		if err != nil {
			continue // finalized meanwhile
		}
		deadline, err := time.Parse(time.RFC3339Nano, string(raw))
		if err != nil || now.Before(deadline) {
			continue
		}
		taskID := strings.TrimPrefix(k, pendingPrefix(c.opts.Name))
		if err := c.timeout(ctx, taskID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// timeout stores and notifies a TIMEOUT for an unanswered task, sends a
// cancel to its target and wakes its waiters.
func (c *Caller) timeout(ctx context.Context, taskID string) error {
	rec, err := c.loadRecord(ctx, taskID)
	if err != nil {
		return err
	}
	if rec == nil {
		return c.opts.Memory.Delete(ctx, pendingKey(c.opts.Name, taskID))
	}
	te := &a2a.TaskError{TaskID: taskID, Agent: rec.Target, State: a2a.StateFailed, Code: a2a.CodeTimeout, Retryable: true,
		Message: "no answer from " + rec.Target + " within the deadline of " + rec.Deadline.Sub(rec.CreatedAt).Round(time.Millisecond).String(),
		Time:    c.opts.Now()}
	s := &StoredResult{TaskID: taskID, Agent: rec.Target, State: te.State, Status: te.Status(), Error: te.AsError()}
	out, err := c.finalize(ctx, s, claimTimeout)
	if err != nil || out == nil {
		return err
	}
	waited := c.waiters.notify(taskID, event{outcome: out})
	if err := c.sendCancel(ctx, rec, "deadline passed"); err != nil && !errors.Is(err, bus.ErrUnroutable) {
		c.log.Warn("cancel after timeout not sent", zap.String("task", taskID), zap.Error(err))
	}
	if env, err := c.opts.Codec.Encode(te, a2a.Trace{}); err == nil && !waited {
		c.broadcast(ctx, bus.FromEnvelope("", env))
	}
	return nil
}
