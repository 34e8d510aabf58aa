package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// publishReply publishes a result or error to the caller's response queue,
// retrying transient failures (lost connection, unconfirmed) for up to
// PublishTimeout. It returns nil only once the broker confirmed it.
func (a *Agent) publishReply(r *outgoing) error {
	if r.payload == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.PublishTimeout)
	defer cancel()
	return a.publishTo(ctx, r.caller, r.payload, r.trace)
}

// publishStatus publishes a status update of req once (status is advisory:
// a lost update is logged by the caller of this function, never retried).
func (a *Agent) publishStatus(ctx context.Context, req *a2a.TaskRequest, trace a2a.Trace, st *a2a.TaskStatus) error {
	env, err := a.opts.Codec.Encode(st, trace)
	if err != nil {
		return fmt.Errorf("encode status of %q: %w", req.TaskID, err)
	}
	key, err := a2a.ResponseRoutingKey(req.Caller)
	if err != nil {
		return err
	}
	msg := bus.FromEnvelope(key, env)
	msg.Transient = true // advisory: the broker need not write it to disk
	if err := a.opts.Bus.Publish(ctx, msg); err != nil {
		return fmt.Errorf("publish status of %q to %q: %w", req.TaskID, key, err)
	}
	return nil
}

// announceWorking publishes the task's working status in the background —
// the handler starts without waiting for its confirm — and returns a channel
// closed once that publish has ended. Progress and the final reply wait for
// it, so the caller sees the status updates in order, before the result.
// Run waits for these publishes before returning.
func (a *Agent) announceWorking(ctx context.Context, t *Task) <-chan struct{} {
	done := make(chan struct{})
	st := t.status("", nil)
	a.statuses.Go(func() {
		defer close(done)
		// The handler may finish (and its context end) before the confirm comes.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.opts.PublishTimeout)
		defer cancel()
		if err := t.publishStatus(ctx, st); err != nil {
			a.log.Warn("working status not published", zap.String("task", t.Request.TaskID), zap.Error(err))
		}
	})
	return done
}

func (a *Agent) publishTo(ctx context.Context, caller string, p a2a.Payload, trace a2a.Trace) error {
	key, err := a2a.ResponseRoutingKey(caller)
	if err != nil {
		return err
	}
	env, err := a.opts.Codec.Encode(p, trace)
	if err != nil {
		return fmt.Errorf("encode %s: %w", p.Kind(), err)
	}
	msg := bus.FromEnvelope(key, env)
	backoff := 50 * time.Millisecond
	for {
		err = a.opts.Bus.Publish(ctx, msg)
		if err == nil || !retryable(err) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("publish %s to %q: %w (last error: %w)", p.Kind(), key, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
	if err != nil {
		return fmt.Errorf("publish %s to %q: %w", p.Kind(), key, err)
	}
	return nil
}

// retryable reports whether a publish may succeed when tried again: the
// broker is reconnecting or did not confirm. Unroutable (no response queue)
// and a closed bus are final.
func retryable(err error) bool {
	return !errors.Is(err, bus.ErrUnroutable) && !errors.Is(err, bus.ErrClosed) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
