// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// taskHandler adapts process to the bus: every delivery is answered (result
// or typed error, confirmed) and then acked, or requeued when the agent stops
// before the task finished or a transient failure kept the reply from being
// published. A reply that can never be published does not requeue the task
// (deliverReply). A lost delivery is left to the broker, which has it back:
// the bus refuses to requeue it a second time.
func (a *Agent) taskHandler(workCtx context.Context, b *budget) bus.Handler {
	return func(dctx context.Context, d *bus.Delivery) error {
		if !b.reserve() {
			return d.Release() // an ephemeral agent's budget is spent: leave it to the next job
		}
		settled := false
		defer func() { b.finish(settled) }()

		reply, requeue := a.process(workCtx, dctx, d)
		if requeue || (reply != nil && a.deliverReply(reply)) {
			// A lost delivery refuses the nack (bus.ErrDeliveryLost): the
			// broker has it back already, and its redelivery counts the attempt.
			err := d.Nack()
			if err == nil && d.LastAttempt() {
				a.observeDeadLetter() // the bus dead-letters a requeue at the last attempt
			}
			return err
		}
		if b.lastSlot() {
			b.stop() // stop fetching before the ack frees the prefetch slot
		}
		if reply != nil && reply.deadLetter {
			err := d.DeadLetter()
			if err == nil {
				a.observeDeadLetter()
			}
			settled = err == nil
			return err
		}
		err := d.Ack()
		settled = err == nil
		return err
	}
}

// outgoing is the reply to publish for one delivery.
type outgoing struct {
	taskID     string
	caller     string
	skill      string
	payload    a2a.Payload
	trace      a2a.Trace
	deadLetter bool // move the request to the dead-letter queue after replying
}

// echo writes the request's turn and the delivery's attempt (when above
// 1) on the answer, so that the caller knows which turn it ends and whether
// the task may have answered before (TaskResult.Turn, TaskResult.Attempt).
func (r *outgoing) echo(turn, attempt int) {
	if r == nil {
		return
	}
	attempt = attemptEcho(attempt)
	switch p := r.payload.(type) {
	case *a2a.TaskResult:
		p.Turn, p.Attempt = turn, attempt
	case *a2a.TaskError:
		p.Turn, p.Attempt = turn, attempt
	}
}

// attemptEcho is the attempt an answer carries: omitted (0) on a first one.
func attemptEcho(attempt int) int {
	if attempt <= 1 {
		return 0
	}
	return attempt
}

// process decodes and runs one delivery. It returns the reply to publish
// (nil when there is nobody to answer), or requeue=true when the agent is
// shutting down before the task finished or the delivery was lost (dctx,
// the bus's context for the delivery, ended with bus.ErrDeliveryLost).
func (a *Agent) process(workCtx, dctx context.Context, d *bus.Delivery) (reply *outgoing, requeue bool) {
	received := time.Now() // wall clock, as the broker's consumer_timeout
	env := d.Envelope
	payload, err := a.opts.Codec.Decode(env)
	if err != nil {
		return a.rejectUndecodable(d, err), false
	}
	req, ok := payload.(*a2a.TaskRequest)
	if !ok {
		a.log.Warn("not a task request; dead-lettered", zap.String("type", string(d.Kind)), zap.String("message_id", d.MessageID))
		return &outgoing{deadLetter: true}, false
	}
	trace, observed := a.observeTask(req, d, a2a.TraceOf(env))
	defer func() { observed(reply, requeue) }()
	defer func() { reply.echo(req.Turn, d.Attempt) }()
	if r := a.checkCaller(d, req, trace); r != nil { // identity.go
		return r, false
	}
	fail := func(code a2a.ErrorCode, format string, args ...any) *outgoing {
		return a.errorReply(req, trace, a2a.NewError(code, format, args...))
	}
	switch {
	case !a2a.SameAgent(req.Target, a.Name()):
		return fail(a2a.CodeInvalidInput, "task for agent %q was delivered to %q", req.Target, a.Name()), false
	case d.Exhausted():
		r := fail(a2a.CodeExecutionFailed, "task gave up after %d delivery attempts (limit %d)", d.Attempt-1, a.opts.MaxAttempts)
		r.deadLetter = true
		return r, false
	case !req.StartBy.IsZero() && d.Attempt <= 1 && !a.opts.Now().Before(req.StartBy):
		// Not taken within its wait bound: it never ran (a later attempt was
		// taken before, and is bound by the deadline only).
		return fail(a2a.CodeExpiredInQueue, "no agent took the task from its queue by %s (it waited %s)",
			req.StartBy.Format(time.RFC3339Nano), a.waited(req)), false
	case !a.opts.Now().Before(req.Deadline):
		return fail(a2a.CodeTimeout, "deadline %s passed before the task started", req.Deadline.Format(time.RFC3339Nano)), false
	}
	// The chain ends with the caller; this agent must not be in it already.
	if n := len(req.CallChain); n > 0 {
		if err := a2a.CheckChain(req.CallChain, req.CallChain[n-1], a.Name(), a.opts.MaxDepth); err != nil {
			return a.errorReply(req, trace, err), false
		}
	}
	if err := a.authorize(req); err != nil { // the policy (policy.go)
		return a.errorReply(req, trace, err), false
	}
	a.mu.Lock()
	h, ok := a.handlers[req.Skill]
	a.mu.Unlock()
	if !ok {
		return fail(a2a.CodeSkillNotSupported, "agent %q has no skill %q; it has: %s", a.Name(), req.Skill, a.skillList()), false
	}
	if req.Turn == 0 { // a later turn's input answers the agent's question, not the skill's schema
		if err := a.checkInput(req); err != nil {
			return a.errorReply(req, trace, err), false
		}
	}
	return a.execute(workCtx, dctx, d, req, trace, h, received)
}

// execute runs the handler under the task's deadline and cancellation and
// turns its outcome into a reply. The deadline is at most MaxTaskDuration
// after received, whatever the request asks.
func (a *Agent) execute(workCtx, dctx context.Context, d *bus.Delivery, req *a2a.TaskRequest, trace a2a.Trace, h Handler, received time.Time) (*outgoing, bool) {
	ctx, cancel := context.WithCancelCause(workCtx)
	defer cancel(nil)
	// A lost delivery is back in its queue and runs again: this run stops.
	defer context.AfterFunc(dctx, func() {
		if errors.Is(context.Cause(dctx), bus.ErrDeliveryLost) {
			cancel(bus.ErrDeliveryLost)
		}
	})()
	deadline, clamped := a.taskDeadline(req, received)
	ctx, cancelDeadline := context.WithDeadline(ctx, deadline)
	defer cancelDeadline()
	run := runKey{id: req.TaskID, turn: req.Turn}
	if !a.running.start(run, req.Caller, cancel) { // its caller canceled it before it started here
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeCanceled, "task was canceled before it started")), false
	}
	defer a.running.remove(run)

	mem, _ := a.opts.Memory.(memoryReader)
	task := &Task{Request: req, Attempt: d.Attempt, Trace: trace, agentName: a.Name(), now: a.opts.Now, memory: mem,
		publishStatus: func(ctx context.Context, st *a2a.TaskStatus) error { return a.publishStatus(ctx, req, trace, st) }}
	if req.Stream || !req.StartBy.IsZero() {
		a.announceWorking(ctx, task) // with startBy, the take notice: the task left its queue
	}

	start := time.Now()
	res, err := a.runHandler(a2a.WithTask(ctx, req, trace), h, task)
	elapsed := time.Since(start)
	switch {
	case errors.Is(context.Cause(ctx), errShutdown):
		a.log.Info("task interrupted by shutdown; requeued", zap.String("task", req.TaskID))
		return nil, true
	case errors.Is(context.Cause(ctx), bus.ErrDeliveryLost):
		a.log.Info("task interrupted: its delivery was lost with the broker connection; it runs again", zap.String("task", req.TaskID))
		return nil, true
	case errors.Is(context.Cause(ctx), errCanceledByCaller):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeCanceled, "task canceled by %s", req.Caller)), false
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (err != nil || res == nil) && clamped:
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeTimeout, "task exceeded the agent's maximum task duration of %s", a.opts.MaxTaskDuration)), false
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (err != nil || res == nil) && req.RunTimeout() > 0:
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeTimeout, "task exceeded its run time of %s (it ran %s)",
			req.RunTimeout().Round(time.Millisecond), elapsed.Round(time.Millisecond))), false
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (err != nil || res == nil):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeTimeout, "task exceeded its deadline after %s", elapsed.Round(time.Millisecond))), false
	case err != nil:
		var typed *a2a.Error
		if !errors.As(err, &typed) {
			typed = a2a.NewError(a2a.CodeExecutionFailed, "%v", err)
		}
		return a.errorReply(req, trace, typed), false
	case res == nil || (res.Message == nil && len(res.Artifacts) == 0 && res.Question == nil):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeExecutionFailed, "skill %q returned an empty result", req.Skill)), false
	}
	status := res.Status
	if status == "" && res.Question == nil { // a question ends a turn, not the task: it has no contract status
		status = a2a.StatusSuccess
	}
	result := &a2a.TaskResult{
		TaskID: req.TaskID, Agent: a.Name(), State: res.state(), Status: status,
		Message: res.Message, Artifacts: res.Artifacts, Confidence: a.confidence(req.Skill, status, res), Warnings: res.Warnings,
		Metadata: a2a.ResultMetadata{ProcessingTimeMs: elapsed.Milliseconds(), AgentVersion: a.opts.Card.Version, TokensUsed: res.TokensUsed, Extra: res.Extra},
		Time:     a.opts.Now(), Question: res.Question, Turn: req.Turn,
	}
	if err := result.Validate(); err != nil {
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeExecutionFailed, "skill %q returned an invalid result: %v", req.Skill, err)), false
	}
	if res.Question != nil {
		// The turn ends here: the answer comes as a new request, to any replica.
		a.log.Info("task waits for input", zap.String("task", req.TaskID), zap.String("skill", req.Skill), zap.String("caller", req.Caller),
			zap.Int("turn", req.Turn), zap.String("state", string(result.State)), zap.Duration("took", elapsed))
	} else if ce := a.log.Check(zap.InfoLevel, "task completed"); ce != nil { // not logged: spare building the fields
		ce.Write(zap.String("task", req.TaskID), zap.String("skill", req.Skill), zap.String("caller", req.Caller),
			zap.Int("turn", req.Turn), zap.Duration("took", elapsed))
	}
	return &outgoing{taskID: req.TaskID, caller: req.Caller, skill: req.Skill, payload: result, trace: trace}, false
}

// taskDeadline is the deadline of req's handler: its run time from when it
// was taken (received) for a request with a wait bound (StartBy), never past
// the request's deadline; for one without, the deadline. Either is clamped
// to MaxTaskDuration after received so that no delivery stays unacked past
// the broker's consumer_timeout. clamped tells whether the clamp applied.
func (a *Agent) taskDeadline(req *a2a.TaskRequest, received time.Time) (deadline time.Time, clamped bool) {
	deadline = req.Deadline
	if run := req.RunTimeout(); run > 0 && received.Add(run).Before(deadline) {
		deadline = received.Add(run)
	}
	limit := received.Add(a.opts.MaxTaskDuration)
	if deadline.IsZero() || limit.Before(deadline) {
		return limit, true
	}
	return deadline, false
}

// waited is how long req waited before this agent dequeued it, from its
// creation (0 when the caller set no createdAt).
func (a *Agent) waited(req *a2a.TaskRequest) time.Duration {
	if req.CreatedAt.IsZero() {
		return 0
	}
	return max(a.opts.Now().Sub(req.CreatedAt), 0).Round(time.Millisecond)
}

// maxPanicValue bounds the text of a panic value sent to the caller.
const maxPanicValue = 200

// runHandler calls h under bus.Recover. A panic becomes an error naming the
// skill and the panic value (truncated to maxPanicValue): the caller sees
// no stack, which is logged here, once, at error level.
func (a *Agent) runHandler(ctx context.Context, h Handler, t *Task) (res *Result, err error) {
	err = bus.Recover(func() error {
		var herr error
		res, herr = h(ctx, t)
		return herr
	})
	if p, ok := errors.AsType[*bus.PanicError](err); ok {
		value := text.Cut(fmt.Sprint(p.Value), maxPanicValue)
		a.panicLog.Error("skill panicked", zap.String("task", t.Request.TaskID), zap.String("skill", t.Request.Skill),
			zap.String("caller", t.Request.Caller), zap.String("panic", redact.String(value)), zap.String("stack", string(p.Stack)))
		return nil, fmt.Errorf("skill %q panicked: %s", t.Request.Skill, value)
	}
	return res, err
}

func (a *Agent) errorReply(req *a2a.TaskRequest, trace a2a.Trace, e *a2a.Error) *outgoing {
	return a.failure(req.TaskID, req.Skill, req.Caller, trace, e)
}

// failure is the task.error reply e of task id (of skill, for caller); the
// failure is logged with its message redacted.
func (a *Agent) failure(id, skill, caller string, trace a2a.Trace, e *a2a.Error) *outgoing {
	state := a2a.TaskStateFailed
	switch e.Code {
	case a2a.CodeCanceled:
		state = a2a.TaskStateCanceled
	case a2a.CodeSkillNotSupported, a2a.CodeInvalidInput, a2a.CodeForbidden:
		state = a2a.TaskStateRejected
	}
	a.log.Info("task failed", zap.String("task", id), zap.String("skill", skill), zap.String("caller", caller),
		zap.String("code", string(e.Code)), zap.String("error", redact.String(e.Message)))
	return &outgoing{taskID: id, caller: caller, skill: skill, trace: trace, payload: &a2a.TaskError{
		TaskID: id, Agent: a.Name(), State: state, Code: e.Code, Message: e.Message, Retryable: e.Retryable, Time: a.opts.Now(),
	}}
}

// rejectUndecodable answers an invalid request with INVALID_INPUT when its
// task id and caller can still be read, and dead-letters it either way.
func (a *Agent) rejectUndecodable(d *bus.Delivery, decodeErr error) *outgoing {
	var head struct {
		TaskID string `json:"taskId"`
		Caller string `json:"caller"`
		Turn   int    `json:"turn"`
	}
	_ = json.Unmarshal(d.Body, &head)
	a.log.Warn("undecodable task dead-lettered", zap.String("message_id", d.MessageID), zap.Error(decodeErr))
	if a2a.ValidateTaskID(head.TaskID) != nil || a2a.ValidateAgentName(head.Caller) != nil {
		return &outgoing{deadLetter: true}
	}
	return &outgoing{taskID: head.TaskID, caller: head.Caller, deadLetter: true, payload: &a2a.TaskError{
		TaskID: head.TaskID, Agent: a.Name(), State: a2a.TaskStateRejected, Code: a2a.CodeInvalidInput,
		Message: decodeErr.Error(), Time: a.opts.Now(), Turn: max(head.Turn, 0), Attempt: attemptEcho(d.Attempt),
	}}
}
