// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// publishReply publishes a result or error to the caller's response queue,
// retrying transient failures (lost connection, unconfirmed) for up to
// ReplyTimeout. It returns nil only once the broker confirmed it.
func (a *Agent) publishReply(r *outgoing) error {
	if r.payload == nil {
		return nil
	}
	return a.publishTo(time.Now().Add(a.opts.ReplyTimeout), r.caller, r.payload, r.trace)
}

// firstPublishBounded reports whether the bus bounds a publish within
// ReplyTimeout by itself: then a reply's first attempt needs no context
// with a deadline (a context and a timer per reply), only the retries do.
func (a *Agent) firstPublishBounded() bool {
	pb, ok := a.opts.Bus.(bus.BoundedPublisher)
	return ok && pb.PublishTimeout() <= a.opts.ReplyTimeout
}

// deliverReply publishes r and reports whether the task must be requeued:
// only when a transient failure (lost connection, no confirm) outlasted
// ReplyTimeout. A reply that can never be published does not run the task
// again: one that cannot be encoded (a result over the codec's limit) is
// replaced by a task.error the caller can receive (RESULT_TOO_LARGE or
// EXECUTION_FAILED); one that is unroutable (the caller's response queue
// does not exist, so nobody can ever receive it) is logged and the request
// dead-lettered.
func (a *Agent) deliverReply(r *outgoing) (requeue bool) {
	err := a.publishReply(r)
	if errors.Is(err, errUnencodable) {
		if repl := a.encodableReply(r, err); repl != nil {
			repl.deadLetter = r.deadLetter
			*r = *repl
			err = a.publishReply(r)
		}
	}
	switch {
	case err == nil:
		return false
	case errors.Is(err, bus.ErrUnroutable):
		a.log.Warn("reply unroutable: the caller's response queue does not exist; task dead-lettered, not run again",
			zap.String("task", r.taskID), zap.String("skill", r.skill), zap.String("caller", r.caller), zap.Error(err))
	case errors.Is(err, errUnencodable):
		a.log.Error("reply cannot be encoded; task dead-lettered, not run again",
			zap.String("task", r.taskID), zap.String("skill", r.skill), zap.String("caller", r.caller), zap.Error(err))
	default:
		a.log.Warn("reply not published; task requeued", zap.String("task", r.taskID), zap.Error(err))
		return true
	}
	r.deadLetter = true
	return false
}

// maxReplacedMessage bounds the message of a task.error that was too large
// to encode and is sent again shortened.
const maxReplacedMessage = 1024

// encodableReply replaces r, whose payload could not be encoded (encErr), by
// a task.error that can: RESULT_TOO_LARGE naming the sizes for a result
// over the codec's limit, EXECUTION_FAILED for another unencodable result,
// and the same error shortened for an error. Nil when there is nobody to
// answer.
func (a *Agent) encodableReply(r *outgoing, encErr error) *outgoing {
	var e *a2a.Error
	switch p := r.payload.(type) {
	case *a2a.TaskResult:
		if errors.Is(encErr, a2a.ErrTooLarge) {
			e = a2a.NewError(a2a.CodeResultTooLarge, "skill %q returned a result of %d bytes, over the bus's message limit of %d bytes",
				r.skill, a.encodedSize(p, r.trace), a.bodyLimit())
		} else {
			e = a2a.NewError(a2a.CodeExecutionFailed, "skill %q returned a result that cannot be sent: %v", r.skill, encErr)
		}
	case *a2a.TaskError:
		e = &a2a.Error{Code: p.Code, Message: text.Cut(p.Message, maxReplacedMessage), Retryable: p.Retryable}
		if !p.Code.Valid() {
			e = a2a.NewError(a2a.CodeExecutionFailed, "the task failed with an invalid error code %q: %s",
				text.Cut(string(p.Code), 64), text.Cut(p.Message, maxReplacedMessage))
		}
	default:
		return nil
	}
	return a.failure(r.taskID, r.skill, r.caller, r.trace, e)
}

// bodyLimit is the codec's limit on a message body.
func (a *Agent) bodyLimit() int {
	if a.opts.Codec.MaxBodyBytes > 0 {
		return a.opts.Codec.MaxBodyBytes
	}
	return a2a.DefaultMaxBodyBytes
}

// encodedSize is the size of p's body without the codec's limit, or -1.
func (a *Agent) encodedSize(p a2a.Payload, trace a2a.Trace) int {
	unbounded := a.opts.Codec
	unbounded.MaxBodyBytes = math.MaxInt
	env, err := unbounded.Encode(p, trace)
	if err != nil {
		return -1
	}
	return len(env.Body)
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
	msg := bus.Message{Envelope: env, RoutingKey: key}
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

// replyBackoff is the wait between the attempts of a reply's publish.
var replyBackoff = backoff.Policy{Min: 50 * time.Millisecond, Max: 2 * time.Second}

// publishTo publishes p to caller's response queue, retrying transient
// failures until deadline. The first attempt runs without a deadline of its
// own when the bus's publish timeout bounds it within ReplyTimeout
// (firstPublishBounded); the retries under one.
func (a *Agent) publishTo(deadline time.Time, caller string, p a2a.Payload, trace a2a.Trace) error {
	key, err := a2a.ResponseRoutingKey(caller)
	if err != nil {
		return err
	}
	env, err := a.opts.Codec.Encode(p, trace)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errUnencodable, p.Kind(), err)
	}
	msg := bus.Message{Envelope: env, RoutingKey: key}
	ctx := context.Background()
	if !a.firstPublishBounded() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		err = a.opts.Bus.Publish(ctx, msg)
		if err == nil || !retryable(err) {
			break
		}
		if ctx.Done() == nil { // the first attempt failed, bounded by the bus: the retries by deadline
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		if !backoff.Sleep(ctx, replyBackoff.Delay(attempt)) {
			return fmt.Errorf("publish %s to %q: %w (last error: %w)", p.Kind(), key, ctx.Err(), err)
		}
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
