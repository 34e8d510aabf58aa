// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Bounds of a routed call.
const (
	// subTaskMargin is the most of the route task's remaining time kept
	// back from the routed task, so that its answer can still be passed on.
	subTaskMargin = 5 * time.Second
	// cancelTimeout bounds the cancel of a routed task whose route task ended.
	cancelTimeout = 5 * time.Second
)

// route sends the request to rep's target and returns its answer with the
// report: a local skill runs in-process on the task, any other agent gets
// a task of its own through the caller, with the request (and what the
// user added when asked), the task's structured input, its handoff and its
// context id, due a little before the route task.
func (r *Router) route(ctx context.Context, t *agent.Task, rep *Report, conv conversation) (*agent.Result, error) {
	rep.Decision = DecisionRoute
	if l, ok := r.local[rep.TargetCapability]; ok && a2a.SameAgent(rep.TargetAgent, r.opts.Self) {
		sub := *t
		req := *t.Request
		req.Skill, req.Message, req.Turn, req.History = l.Skill.ID, a2a.NewTextMessage(a2a.MessageRoleUser, conv.routedText()), 0, nil
		sub.Request = &req
		res, err := l.Handler(ctx, &sub)
		if err != nil || res == nil {
			return res, err
		}
		return withReport(res, rep), nil
	}
	left := time.Until(t.Request.Deadline)
	if t.Request.Deadline.IsZero() {
		left = 0 // the caller's default
	} else if left <= 0 {
		return nil, context.DeadlineExceeded
	}
	left -= min(left/10, subTaskMargin)
	inv, err := r.opts.Caller.Invoke(ctx, caller.Request{
		Target: rep.TargetAgent, Skill: rep.TargetCapability, Text: conv.routedText(), Input: t.Request.Input,
		ContextID: t.Request.ContextID, Handoff: t.Request.Handoff, Timeout: left, Priority: t.Request.Priority,
	})
	if err != nil {
		return nil, callError(ctx, rep, err)
	}
	rep.RoutedTask = inv.TaskID
	_ = t.Progress(ctx, fmt.Sprintf("working on it (%s)", rep.PrimaryIntent), -1) // advisory
	return r.await(ctx, t, rep, inv.TaskID)
}

// relay passes the user's answer on to the routed task that asked it,
// and returns what that task does next.
func (r *Router) relay(ctx context.Context, t *agent.Task, last *Report, answer string) (*agent.Result, error) {
	rep := &Report{Classification: last.Classification, Decision: DecisionRoute, RoutedTask: last.RoutedTask}
	if _, err := r.opts.Caller.Reply(ctx, caller.Reply{TaskID: last.RoutedTask, Text: answer, Input: t.Request.Input}); err != nil {
		return nil, callError(ctx, rep, fmt.Errorf("pass the answer on to task %s: %w", last.RoutedTask, err))
	}
	return r.await(ctx, t, rep, last.RoutedTask)
}

// await waits for the routed task's turn to end and makes it this task's:
// its answer, its failure, or its question relayed.
func (r *Router) await(ctx context.Context, t *agent.Task, rep *Report, taskID string) (*agent.Result, error) {
	out, err := r.opts.Caller.Wait(ctx, taskID, func(st *a2a.TaskStatus) {
		if txt := a2a.MessageText(st.Message); txt != "" || st.Progress != nil {
			frac := -1.0
			if st.Progress != nil {
				frac = *st.Progress
			}
			_ = t.Progress(ctx, txt, frac) // advisory, like every status
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			r.cancel(ctx, taskID)
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("route: wait for %s task %s: %w", rep.TargetAgent, taskID, err)
	}
	if out == nil || out.Result == nil {
		return nil, errNoRouting
	}
	r.opts.Logger.Info("route: routed", zap.String("task", t.Request.TaskID), zap.String("agent", rep.TargetAgent), zap.String("skill", rep.TargetCapability),
		zap.String("routedTask", taskID), zap.String("state", string(out.Result.State)))
	if out.WaitingForInput() {
		q := out.Question()
		if q == nil {
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "route: %s asked a question without its text", rep.TargetAgent)
		}
		rep.Relayed = true
		res := ask(rep, q.Text)
		qc := *q
		res.Question = &qc
		return res, nil
	}
	if err := out.Err(); err != nil {
		return nil, err // the routed task's *a2a.Error, its code and message as they are
	}
	s := out.Result
	return withReport(&agent.Result{Message: s.Message, Artifacts: s.Artifacts, Status: s.Status, Confidence: s.Confidence, Warnings: s.Warnings,
		TokensUsed: s.Metadata.TokensUsed}, rep), nil
}

// withReport adds rep to res: its artifact, and its warnings to res's.
func withReport(res *agent.Result, rep *Report) *agent.Result {
	res.Artifacts = append(append([]*a2a.Artifact(nil), res.Artifacts...), rep.artifact())
	res.Warnings = append(res.Warnings, rep.Warnings...)
	return res
}

// callError is the route task's error for a routed call that could not be
// made: the context's when the task ended, a typed refusal as is (naming
// the target), a bad request INVALID_INPUT, anything else as is.
func callError(ctx context.Context, rep *Report, err error) error {
	var ae *a2a.Error
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &ae):
		return &a2a.Error{Code: ae.Code, Message: fmt.Sprintf("route to %s (skill %s): %s", rep.TargetAgent, rep.TargetCapability, ae.Message), Retryable: ae.Retryable}
	case errors.Is(err, caller.ErrInvalidRequest):
		return a2a.NewError(a2a.CodeInvalidInput, "route to %s (skill %s): %v", rep.TargetAgent, rep.TargetCapability, err)
	}
	return fmt.Errorf("route to %s (skill %s): %w", rep.TargetAgent, rep.TargetCapability, err)
}

// cancel asks the routed task's agent to stop, on a context that outlives
// the route task's.
func (r *Router) cancel(ctx context.Context, taskID string) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	_ = r.opts.Caller.Cancel(cctx, taskID) // best effort: the routed task's deadline ends it anyway
}
