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

// publishStatus sends a status update of req once, without waiting for the
// broker's confirm: status is advisory (a lost update is logged by the
// caller of this function, never retried). The bus keeps a task's messages
// in order, so the update still reaches the caller before the task's reply.
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
	msg.Transient, msg.NoConfirm = true, true // advisory: neither written to disk nor confirmed
	if err := a.opts.Bus.Publish(ctx, msg); err != nil {
		return fmt.Errorf("publish status of %q to %q: %w", req.TaskID, key, err)
	}
	return nil
}

// announceWorking sends the task's working status before its handler runs.
// The send does not wait for the broker's confirm, and the reply that
// follows keeps its place behind it; a broker that cannot take the status
// within statusSendTimeout (reconnecting) delays the handler no longer.
func (a *Agent) announceWorking(ctx context.Context, t *Task) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusSendTimeout)
	defer cancel()
	if err := t.publishStatus(ctx, t.status("", nil)); err != nil {
		a.log.Warn("working status not published", zap.String("task", t.Request.TaskID), zap.Error(err))
	}
}

// statusSendTimeout bounds the send of a working status.
const statusSendTimeout = 2 * time.Second

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
