// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// pending is one request the process is running.
type pending struct {
	id     string
	frames chan *Frame   // its frames, in the order the process wrote them
	ended  chan struct{} // closed when the handler returned
	failed chan struct{} // closed by failWith
	once   sync.Once
	err    *a2a.Error // why it failed, once failed is closed
}

func newPending(id string) *pending {
	return &pending{id: id, frames: make(chan *Frame, 64), ended: make(chan struct{}), failed: make(chan struct{})}
}

// fail ends the request with EXECUTION_FAILED for reason (the process exited).
func (p *pending) fail(reason string) {
	p.failWith(a2a.NewError(a2a.CodeExecutionFailed, "%s", reason))
}

// failWith ends the request with e; the first failure wins.
func (p *pending) failWith(e *a2a.Error) {
	p.once.Do(func() {
		p.err = e
		close(p.failed)
	})
}

// dispatch routes one line of process c.
func (b *Bridge) dispatch(c *child, line []byte) {
	f, why := decodeFrame(line)
	if why != "" {
		b.violation(c.pid, why, nil)
		return
	}
	switch f.Type {
	case TypeAgentCard:
		select {
		case c.cards <- cardLine{f: f}:
		default:
			b.log.Debug("agent process: repeated agent.card ignored", zap.Int("pid", c.pid))
		}
	case TypeTaskProgress, TypeTaskResult, TypeTaskError, TypeTaskQuestion, TypeInvoke:
		if f.Type == TypeInvoke && f.CallID == "" {
			b.violation(c.pid, "invoke without call_id (its answer could not be matched)", f)
			return
		}
		p := c.lookup(f.RequestID, endsRequest(f.Type)) // a request ends with its first result, error or question
		if p == nil {
			b.violation(c.pid, "unknown request_id", f)
			if f.Type == TypeInvoke { // answered, so the process does not wait for it forever
				_ = c.send(&Frame{Type: TypeInvokeResult, RequestID: f.RequestID, CallID: f.CallID, Status: string(a2a.StatusError),
					Code: string(a2a.CodeInvalidInput), Message: fmt.Sprintf("request_id %q is not running", f.RequestID)})
			}
			return
		}
		select {
		case p.frames <- f:
		case <-p.ended:
			b.violation(c.pid, "frame after the request ended", f)
		}
	default:
		b.violation(c.pid, "unknown type", f)
	}
}

// endsRequest reports whether a frame of type typ ends its request: a
// task.result, a task.error or a task.question.
func endsRequest(typ string) bool {
	return typ == TypeTaskResult || typ == TypeTaskError || typ == TypeTaskQuestion
}

// handle runs one turn of a task on the process: a task.request, then its
// frames until a task.result, task.error or task.question, the process's
// exit, or the task's end (a task.cancel, and CancelGrace for the process
// to answer it).
func (b *Bridge) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	p := newPending(t.Request.TaskID)
	defer close(p.ended)
	c, err := b.live(ctx, p)
	if err != nil {
		return nil, err
	}
	defer c.untrack(p)
	var calls sync.WaitGroup
	callCtx, stopCalls := context.WithCancel(ctx)
	defer func() {
		stopCalls()
		calls.Wait()
	}()
	req, err := requestFrame(ctx, p.id, t)
	if err != nil {
		return nil, err
	}
	if err := c.send(req); err != nil {
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "send the task to the agent process: %v", err)
	}
	for {
		select {
		case f := <-p.frames:
			switch f.Type {
			case TypeTaskProgress:
				b.progress(ctx, c, t, f)
			case TypeTaskResult:
				return b.result(c, f)
			case TypeTaskError:
				return nil, errorOf(f)
			case TypeTaskQuestion:
				return b.question(c, t, f)
			case TypeInvoke:
				calls.Add(1)
				go func() {
					defer calls.Done()
					b.invoke(callCtx, c, t, f)
				}()
			}
		case <-p.failed:
			return nil, p.err
		case <-ctx.Done():
			b.cancel(c, p)
			return nil, ctx.Err()
		}
	}
}

// requestFrame is the task.request frame of t, sent as request id: a later
// turn carries its turn and the task's history, a task in a context its
// context's history, and the caller's context (read from working memory
// when it went by reference) and narrowing travel with it.
func requestFrame(ctx context.Context, id string, t *agent.Task) (*Frame, error) {
	r := t.Request
	callerCtx, err := t.CallerContext(ctx)
	if err != nil {
		return nil, err
	}
	if r.CallerContext != nil && callerCtx == nil {
		callerCtx = []a2a.ContextMessage{} // the caller chose to send nothing
	}
	deadline := r.Deadline
	if end, ok := ctx.Deadline(); ok && end.Before(deadline) {
		deadline = end // the run's end: its run time from the take (startBy), or the agent's clamp
	}
	return &Frame{Type: TypeTaskRequest, RequestID: id, TaskID: r.TaskID, Skill: r.Skill, Text: t.Text(),
		Input: r.Input, SessionID: r.SessionID, Caller: r.Caller, Deadline: formatDeadline(deadline),
		Turn: r.Turn, History: historyOf(r.History), ContextID: r.ContextID, ContextHistory: historyOf(r.ContextHistory),
		CallerContext: callerCtx, AllowedTools: r.AllowedTools, MaxContextTokens: r.MaxContextTokens}, nil
}

// question turns a task.question frame into the result that ends the
// turn waiting for the caller's answer (agent.Ask, AskAuth); a bad field
// fails the task with EXECUTION_FAILED naming it.
func (b *Bridge) question(c *child, t *agent.Task, f *Frame) (*agent.Result, error) {
	q, err := questionOf(f, t.Request.TaskID, t.Request.Target)
	if err != nil {
		b.violation(c.pid, err.Error(), f)
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "the agent process sent a bad question: %v", err)
	}
	return &agent.Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, q.Text), Question: q}, nil
}

// progress publishes a task.progress frame as the task's status.
func (b *Bridge) progress(ctx context.Context, c *child, t *agent.Task, f *Frame) {
	frac := -1.0
	if f.Percent != nil {
		if *f.Percent < 0 || *f.Percent > 100 {
			b.violation(c.pid, fmt.Sprintf("task.progress: percent %v is outside 0..100", *f.Percent), f)
		} else {
			frac = *f.Percent / 100
		}
	}
	msg := f.Message
	if msg == "" {
		msg = "working"
	}
	_ = t.Progress(ctx, msg, frac) // status is advisory
}

// result turns a task.result frame into the task's result; a bad field
// fails the task with EXECUTION_FAILED naming it.
func (b *Bridge) result(c *child, f *Frame) (*agent.Result, error) {
	r, err := resultOf(f)
	if err != nil {
		b.violation(c.pid, err.Error(), f)
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "the agent process sent a bad result: %v", err)
	}
	res := &agent.Result{Status: r.status, Confidence: r.confidence, Warnings: f.Warnings}
	if f.Text != "" {
		res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, f.Text)
	}
	if r.data != nil {
		res.Artifacts = []*a2a.Artifact{{ID: "data", Name: "data", Parts: []*a2a.Part{a2a.NewDataPart(r.data)}}}
	}
	return res, nil
}

// cancel sends task.cancel and waits CancelGrace for the process's answer,
// so its slot is free before the next task is sent.
func (b *Bridge) cancel(c *child, p *pending) {
	if err := c.send(&Frame{Type: TypeTaskCancel, RequestID: p.id}); err != nil {
		return
	}
	grace := time.NewTimer(b.opts.CancelGrace)
	defer grace.Stop()
	for {
		select {
		case f := <-p.frames:
			if endsRequest(f.Type) {
				return
			}
		case <-p.failed:
			return
		case <-grace.C:
			b.log.Debug("agent process did not answer task.cancel in time", zap.Int("pid", c.pid), zap.String("request_id", p.id))
			return
		}
	}
}

// subTaskMargin is at most how much earlier than its task a call is due,
// so its answer can still be used in time.
const subTaskMargin = 100 * time.Millisecond

// cancelTimeout bounds the cancel sent to a call whose task ended.
const cancelTimeout = 5 * time.Second

// invoke makes an invoke frame's call through the caller, in the task's
// context (session, call chain, trace, deadline), and answers it with an
// invoke.result — unless the task ended meanwhile.
func (b *Bridge) invoke(ctx context.Context, c *child, t *agent.Task, f *Frame) {
	reply := &Frame{Type: TypeInvokeResult, RequestID: f.RequestID, CallID: f.CallID, Agent: f.Agent}
	out, err := b.call(ctx, t, f, reply)
	if ctx.Err() != nil {
		return // the task ended: nobody waits for the answer
	}
	if err == nil {
		err = out.Err()
	}
	if err != nil {
		var typed *a2a.Error
		if !errors.As(err, &typed) {
			typed = a2a.NewError(a2a.CodeExecutionFailed, "%v", err)
		}
		reply.Status, reply.Code, reply.Message = string(a2a.StatusError), string(typed.Code), typed.Message
	} else {
		r := out.Result
		reply.Status = string(r.Status)
		if reply.Status == "" {
			reply.Status = string(a2a.StatusSuccess)
		}
		reply.Text, reply.Confidence, reply.Warnings = a2a.MessageText(r.Message), string(r.Confidence), r.Warnings
		reply.Data = dataOf(r.Artifacts)
	}
	if err := c.send(reply); err != nil {
		b.log.Debug("invoke.result not written", zap.Int("pid", c.pid), zap.String("call_id", f.CallID), zap.Error(err))
	}
}

// call invokes the frame's agent and skill and waits for the outcome,
// forwarding its progress as the task's; reply gets the sub-task's id and
// the target's canonical name.
func (b *Bridge) call(ctx context.Context, t *agent.Task, f *Frame, reply *Frame) (*caller.Outcome, error) {
	if b.caller == nil {
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "calls to other agents are not configured for this agent")
	}
	if err := a2a.ValidateAgentName(f.Agent); err != nil {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "invoke: agent: %v", err)
	}
	if err := a2a.ValidateSkillID(f.Skill); err != nil {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "invoke: skill: %v", err)
	}
	end := t.Request.Deadline
	if d, ok := ctx.Deadline(); ok && d.Before(end) {
		end = d // the task's run ends first
	}
	left := time.Until(end)
	if left <= 0 {
		return nil, context.DeadlineExceeded
	}
	timeout := left - min(left/10, subTaskMargin)
	if f.TimeoutMs > 0 {
		timeout = min(timeout, time.Duration(f.TimeoutMs)*time.Millisecond)
	}
	input := f.Input
	if string(input) == "null" {
		input = nil
	}
	inv, err := b.caller.Invoke(ctx, caller.Request{Target: f.Agent, Skill: f.Skill, Text: f.Text, Input: input,
		ContextID: t.Request.ContextID, Timeout: timeout, Priority: t.Request.Priority})
	if err != nil {
		if errors.Is(err, caller.ErrInvalidRequest) {
			return nil, a2a.NewError(a2a.CodeInvalidInput, "invoke: %v", err)
		}
		return nil, fmt.Errorf("invoke %s skill %s: %w", f.Agent, f.Skill, err)
	}
	reply.SubTaskID, reply.Agent = inv.TaskID, inv.Target
	out, err := b.caller.Wait(ctx, inv.TaskID, func(st *a2a.TaskStatus) { forwardStatus(ctx, t, inv.Target, st) })
	if err != nil {
		if ctx.Err() != nil {
			cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
			defer stop()
			_ = b.caller.Cancel(cctx, inv.TaskID) // best effort: its deadline ends it anyway
		}
		return nil, fmt.Errorf("wait for %s task %s: %w", inv.Target, inv.TaskID, err)
	}
	return out, nil
}

// forwardStatus republishes a call's progress as the task's own.
func forwardStatus(ctx context.Context, t *agent.Task, target string, st *a2a.TaskStatus) {
	text := a2a.MessageText(st.Message)
	if text == "" && st.Progress == nil {
		return // a bare "working"
	}
	frac := -1.0
	if st.Progress != nil {
		frac = *st.Progress
	}
	if text == "" {
		text = "working"
	}
	_ = t.Progress(ctx, target+": "+text, frac)
}

// dataOf is the structured data of a result's artifacts: the value of its
// one data part, an array of them when there are several, nil when none.
func dataOf(artifacts []*a2a.Artifact) json.RawMessage {
	var parts []*a2a.Part
	for _, a := range artifacts {
		if a != nil {
			parts = append(parts, a.Parts...)
		}
	}
	return dataOfParts(parts)
}

// dataOfParts is the structured data of parts: the value of its one data
// part, an array of them when there are several, nil when none.
func dataOfParts(parts []*a2a.Part) json.RawMessage {
	var values []any
	for _, p := range parts {
		if p == nil {
			continue
		}
		if d, ok := p.Content.(spec.Data); ok {
			values = append(values, d.Value)
		}
	}
	var v any = values
	switch len(values) {
	case 0:
		return nil
	case 1:
		v = values[0]
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return raw
}
