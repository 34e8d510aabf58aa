package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// taskHandler adapts process to the bus: every delivery is answered (result
// or typed error, confirmed) and then acked, or requeued when the agent stops
// before the task finished or the reply could not be published.
func (a *Agent) taskHandler(workCtx context.Context, b *budget) bus.Handler {
	return func(_ context.Context, d *bus.Delivery) error {
		if !b.reserve() {
			return d.Release() // an ephemeral agent's budget is spent: leave it to the next job
		}
		settled := false
		defer func() { b.finish(settled) }()

		reply, requeue := a.process(workCtx, d)
		if requeue {
			return d.Nack()
		}
		if reply != nil {
			if err := a.publishReply(reply); err != nil {
				a.log.Warn("reply not published; task requeued", zap.String("task", reply.taskID), zap.Error(err))
				return d.Nack()
			}
		}
		if b.lastSlot() {
			b.stop() // stop fetching before the ack frees the prefetch slot
		}
		if reply != nil && reply.deadLetter {
			err := d.DeadLetter()
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
	payload    a2a.Payload
	trace      a2a.Trace
	deadLetter bool // move the request to the dead-letter queue after replying
}

// process decodes and runs one delivery. It returns the reply to publish
// (nil when there is nobody to answer), or requeue=true when the agent is
// shutting down before the task finished.
func (a *Agent) process(workCtx context.Context, d *bus.Delivery) (reply *outgoing, requeue bool) {
	env := d.Envelope()
	payload, err := a.opts.Codec.Decode(env)
	if err != nil {
		return a.rejectUndecodable(d, err), false
	}
	req, ok := payload.(*a2a.TaskRequest)
	if !ok {
		a.log.Warn("not a task request; dead-lettered", zap.String("type", d.Type), zap.String("message_id", d.MessageID))
		return &outgoing{deadLetter: true}, false
	}
	trace := a2a.TraceOf(env)
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
	if err := a.checkInput(req); err != nil {
		return a.errorReply(req, trace, err), false
	}
	return a.execute(workCtx, d, req, trace, h)
}

// execute runs the handler under the task's deadline and cancellation and
// turns its outcome into a reply.
func (a *Agent) execute(workCtx context.Context, d *bus.Delivery, req *a2a.TaskRequest, trace a2a.Trace, h Handler) (*outgoing, bool) {
	ctx, cancel := context.WithCancelCause(workCtx)
	defer cancel(nil)
	ctx, cancelDeadline := context.WithDeadline(ctx, req.Deadline)
	defer cancelDeadline()
	if !a.running.start(req.TaskID, req.Caller, cancel) { // its caller canceled it before it started here
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeCanceled, "task was canceled before it started")), false
	}
	defer a.running.remove(req.TaskID)

	task := &Task{Request: req, Attempt: d.Attempt, Trace: trace, agentName: a.Name(), now: a.opts.Now,
		publishStatus: func(ctx context.Context, st *a2a.TaskStatus) error { return a.publishStatus(ctx, req, trace, st) }}
	if req.Stream {
		a.announceWorking(ctx, task)
	}

	start := time.Now()
	res, err := runHandler(a2a.WithTask(ctx, req, trace), h, task)
	elapsed := time.Since(start)
	switch {
	case errors.Is(context.Cause(ctx), errShutdown):
		a.log.Info("task interrupted by shutdown; requeued", zap.String("task", req.TaskID))
		return nil, true
	case errors.Is(context.Cause(ctx), errCanceledByCaller):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeCanceled, "task canceled by %s", req.Caller)), false
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (err != nil || res == nil):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeTimeout, "task exceeded its deadline after %s", elapsed.Round(time.Millisecond))), false
	case err != nil:
		var typed *a2a.Error
		if !errors.As(err, &typed) {
			typed = a2a.NewError(a2a.CodeExecutionFailed, "%v", err)
		}
		return a.errorReply(req, trace, typed), false
	case res == nil || (res.Message == nil && len(res.Artifacts) == 0):
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeExecutionFailed, "skill %q returned an empty result", req.Skill)), false
	}
	status := res.Status
	if status == "" {
		status = a2a.StatusSuccess
	}
	result := &a2a.TaskResult{
		TaskID: req.TaskID, Agent: a.Name(), State: res.state(), Status: status,
		Message: res.Message, Artifacts: res.Artifacts, Confidence: res.Confidence, Warnings: res.Warnings,
		Metadata: a2a.ResultMetadata{ProcessingTimeMs: elapsed.Milliseconds(), AgentVersion: a.opts.Card.Version, TokensUsed: res.TokensUsed, Extra: res.Extra},
		Time:     a.opts.Now(),
	}
	if err := result.Validate(); err != nil {
		return a.errorReply(req, trace, a2a.NewError(a2a.CodeExecutionFailed, "skill %q returned an invalid result: %v", req.Skill, err)), false
	}
	a.log.Info("task completed", zap.String("task", req.TaskID), zap.String("skill", req.Skill), zap.String("caller", req.Caller), zap.Duration("took", elapsed))
	return &outgoing{taskID: req.TaskID, caller: req.Caller, payload: result, trace: trace}, false
}

// runHandler calls h, turning a panic into an error.
func runHandler(ctx context.Context, h Handler, t *Task) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("skill %q panicked: %v\n%s", t.Request.Skill, p, debug.Stack())
		}
	}()
	return h(ctx, t)
}

func (a *Agent) errorReply(req *a2a.TaskRequest, trace a2a.Trace, e *a2a.Error) *outgoing {
	state := a2a.StateFailed
	switch e.Code {
	case a2a.CodeCanceled:
		state = a2a.StateCanceled
	case a2a.CodeSkillNotSupported, a2a.CodeInvalidInput, a2a.CodeForbidden:
		state = a2a.StateRejected
	}
	a.log.Info("task failed", zap.String("task", req.TaskID), zap.String("skill", req.Skill), zap.String("caller", req.Caller),
		zap.String("code", string(e.Code)), zap.String("error", e.Message))
	return &outgoing{taskID: req.TaskID, caller: req.Caller, trace: trace, payload: &a2a.TaskError{
		TaskID: req.TaskID, Agent: a.Name(), State: state, Code: e.Code, Message: e.Message, Retryable: e.Retryable, Time: a.opts.Now(),
	}}
}

// rejectUndecodable answers an invalid request with INVALID_INPUT when its
// task id and caller can still be read, and dead-letters it either way.
func (a *Agent) rejectUndecodable(d *bus.Delivery, decodeErr error) *outgoing {
	var head struct {
		TaskID string `json:"taskId"`
		Caller string `json:"caller"`
	}
	_ = json.Unmarshal(d.Body, &head)
	a.log.Warn("undecodable task dead-lettered", zap.String("message_id", d.MessageID), zap.Error(decodeErr))
	if a2a.ValidateTaskID(head.TaskID) != nil || a2a.ValidateAgentName(head.Caller) != nil {
		return &outgoing{deadLetter: true}
	}
	return &outgoing{taskID: head.TaskID, caller: head.Caller, deadLetter: true, payload: &a2a.TaskError{
		TaskID: head.TaskID, Agent: a.Name(), State: a2a.StateRejected, Code: a2a.CodeInvalidInput,
		Message: decodeErr.Error(), Time: a.opts.Now(),
	}}
}
