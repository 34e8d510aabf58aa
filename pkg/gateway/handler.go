// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// handler maps the A2A methods onto the caller of the request's principal
// (a2asrv.RequestHandler); the transports (JSON-RPC, REST) are a2asrv's.
//
//   - SendMessage: Invoke (or, with the message's taskId, Reply to a task
//     waiting for input), then Wait for the outcome — the end of the task
//     or a question — within the task's deadline; with returnImmediately,
//     the submitted task at once.
//   - SendStreamingMessage: the same, watched: the task, its status
//     updates as status-update events, the result as artifact-update
//     events and the final status-update.
//   - GetTask, SubscribeToTask: the task from working memory (any
//     replica), and for a subscription its updates until its end.
//   - CancelTask: the bus cancel, answered with the state the task ends in.
//   - ListTasks: the principal's latest tasks (list.go).
//   - push notification configs: push.go.
//
// A principal reaches only the tasks of its own caller name, through the
// agent of the URL: any other task id is not found.
type handler struct{ g *Gateway }

var _ a2asrv.RequestHandler = (*handler)(nil)

// call is the request of ctx (always there: routes puts it) with a caller.
func (h *handler) call(ctx context.Context) (*request, error) {
	rq := requestFrom(ctx)
	if rq == nil || rq.caller == nil {
		return nil, errInternal("no principal for the request")
	}
	return rq, nil
}

// SendMessage implements a2asrv.RequestHandler.
func (h *handler) SendMessage(ctx context.Context, req *spec.SendMessageRequest) (spec.SendMessageResult, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.start(ctx, rq, req, false)
	if err != nil {
		return nil, err
	}
	if req.Config != nil && req.Config.ReturnImmediately {
		s.registered()
		return pendingTask(s.inv, h.g.opts.Now()), nil
	}
	out, err := h.wait(ctx, rq, s, nil)
	s.registered()
	switch {
	case err == nil:
		return resultTask(out.Invocation, out.Result), nil
	case h.g.ctx.Err() != nil:
		return pendingTask(s.inv, h.g.opts.Now()), nil // the gateway is closing: the task goes on, GetTask finds it
	}
	return nil, h.g.refusal(rq, "wait for task "+s.inv.TaskID, err)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (h *handler) SendStreamingMessage(ctx context.Context, req *spec.SendMessageRequest) iter.Seq2[spec.Event, error] {
	return func(yield func(spec.Event, error) bool) {
		rq, err := h.call(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		s, err := h.start(ctx, rq, req, true)
		if err != nil {
			yield(nil, err)
			return
		}
		defer s.close()
		s.registered()
		if !yield(pendingTask(s.inv, h.g.opts.Now()), nil) {
			return
		}
		h.follow(ctx, rq, s, yield)
	}
}

// SubscribeToTask implements a2asrv.RequestHandler: the task as it is,
// then, while it runs, its updates and its outcome. A task that already
// ended (or waits for input) is its one event.
func (h *handler) SubscribeToTask(ctx context.Context, req *spec.SubscribeToTaskRequest) iter.Seq2[spec.Event, error] {
	return func(yield func(spec.Event, error) bool) {
		rq, err := h.call(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		info, err := h.task(ctx, rq, string(req.ID))
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(infoTask(info), nil) || !info.Pending {
			return
		}
		h.follow(ctx, rq, &started{inv: invocationOf(info)}, yield)
	}
}

// GetTask implements a2asrv.RequestHandler.
func (h *handler) GetTask(ctx context.Context, req *spec.GetTaskRequest) (*spec.Task, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, err
	}
	info, err := h.task(ctx, rq, string(req.ID))
	if err != nil {
		return nil, err
	}
	return infoTask(info), nil
}

// CancelTask implements a2asrv.RequestHandler: the bus cancel, then the
// task as it ends (within Options.CancelWait; still running past it).
func (h *handler) CancelTask(ctx context.Context, req *spec.CancelTaskRequest) (*spec.Task, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, err
	}
	id := string(req.ID)
	info, err := h.task(ctx, rq, id)
	if err != nil {
		return nil, err
	}
	if !info.Pending && (info.Result == nil || resultState(info.Result).Terminal()) {
		return nil, spec.NewError(spec.ErrTaskNotCancelable, fmt.Sprintf("task %s has ended (%s)", id, infoTask(info).Status.State))
	}
	if err := rq.caller.Cancel(ctx, id); err != nil {
		return nil, h.g.refusal(rq, "cancel task "+id, err)
	}
	wctx, cancel := context.WithTimeout(ctx, h.g.opts.CancelWait)
	defer cancel()
	out, err := rq.caller.Wait(wctx, id, nil)
	if err == nil {
		return resultTask(out.Invocation, out.Result), nil
	}
	if wctx.Err() != nil && ctx.Err() == nil {
		if info, err := rq.caller.Task(ctx, id); err == nil {
			return infoTask(info), nil // asked to cancel, not ended yet (its agent may not run now)
		}
	}
	return nil, h.g.refusal(rq, "wait for the cancel of task "+id, err)
}

// GetExtendedAgentCard implements a2asrv.RequestHandler: the cards are public.
func (h *handler) GetExtendedAgentCard(context.Context, *spec.GetExtendedAgentCardRequest) (*spec.AgentCard, error) {
	return nil, spec.ErrExtendedCardNotConfigured
}

// task is the task id of the request's principal, for the agent of the
// URL: not found for any other.
func (h *handler) task(ctx context.Context, rq *request, id string) (*caller.TaskInfo, error) {
	if id == "" {
		return nil, invalidParams("the task id is required")
	}
	if a2a.ValidateTaskID(id) != nil {
		return nil, spec.NewError(spec.ErrTaskNotFound, "task not found")
	}
	info, err := rq.caller.Task(ctx, id)
	if err != nil {
		return nil, h.g.refusal(rq, "read task "+id, err)
	}
	if !sameAgent(info.Target, rq.agent.Name) {
		return nil, spec.NewError(spec.ErrTaskNotFound, "task not found")
	}
	return info, nil
}

func invocationOf(info *caller.TaskInfo) caller.Invocation {
	return caller.Invocation{TaskID: info.TaskID, SessionID: info.SessionID, ContextID: info.ContextID, Target: info.Target,
		MemoryKey: info.MemoryKey, Deadline: info.Deadline}
}

// started is a task a send started (or answered): its invocation, its
// watch (streams), and the registration that goes on beside the wait.
type started struct {
	inv   caller.Invocation
	watch *caller.Watch
	join  func()
}

// registered waits for the task's push registration to be done: what the
// answer reports is then in memory.
func (s *started) registered() {
	if s.join != nil {
		s.join()
		s.join = nil
	}
}

func (s *started) close() {
	s.registered()
	if s.watch != nil {
		s.watch.Close()
	}
}

// start sends the message: a new task of the agent's skill, or the answer
// to a task waiting for input (the message names the task). A new task is
// listed for its principal in the batch that records it (taskIndex); its
// push config is kept beside the caller's wait.
func (h *handler) start(ctx context.Context, rq *request, req *spec.SendMessageRequest, stream bool) (*started, error) {
	if req == nil || req.Message == nil {
		return nil, invalidParams("params.message is required")
	}
	in, err := parseSend(rq, req)
	if err != nil {
		return nil, err
	}
	if in.push != nil {
		if err := h.g.push.check(in.push); err != nil {
			return nil, err
		}
	}
	s := &started{}
	var list *listing
	if in.taskID != "" {
		if err := h.answerable(ctx, rq, in); err != nil {
			return nil, err
		}
		r := caller.Reply{TaskID: in.taskID, Text: in.text, Input: in.input, MessageID: in.messageID, Timeout: in.timeout}
		if stream {
			s.inv, s.watch, err = rq.caller.ReplyWatched(ctx, r) // the watch is there before the turn's first update
		} else {
			s.inv, err = rq.caller.Reply(ctx, r)
		}
	} else {
		if !served(rq.agent) {
			return nil, spec.NewError(spec.ErrUnsupportedOperation, fmt.Sprintf(
				"agent %s is offline and not well-known: it takes no new tasks (its tasks can still be read and canceled)", rq.agent.Name))
		}
		breq := caller.Request{Target: rq.agent.Name, Skill: in.skill, Text: in.text, Input: in.input,
			ContextID: in.contextID, Timeout: in.timeout, Trace: rq.trace}
		if list = h.g.tasks.listing(rq.principal); list != nil {
			breq.RecordAlso = list.ops
		}
		if stream {
			s.inv, s.watch, err = rq.caller.InvokeWatched(ctx, breq)
		} else {
			s.inv, err = rq.caller.Invoke(ctx, breq)
		}
	}
	if errors.Is(err, caller.ErrOutcomeUnknown) {
		h.g.log.Warn("gateway: publish not confirmed; the task is kept and ends with its answer or a TIMEOUT",
			zap.String("task", s.inv.TaskID), zap.Error(err))
	} else if err != nil {
		list.unsent()
		what := "send to " + rq.agent.Name
		if in.taskID != "" {
			what = "answer task " + in.taskID
		}
		return nil, h.g.refusal(rq, what, err)
	}
	if in.push != nil || in.taskID != "" {
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.g.register(rq, s.inv, in.push)
		}()
		s.join = func() { <-done }
	}
	return s, nil
}

// answerable checks that the task a message answers is the principal's,
// for this agent, and in the message's context if it names one.
func (h *handler) answerable(ctx context.Context, rq *request, in *sendInput) error {
	info, err := h.task(ctx, rq, in.taskID)
	if err != nil {
		return err
	}
	if in.contextID != "" && info.ContextID != "" && in.contextID != info.ContextID {
		return invalidParams(fmt.Sprintf("task %s is in context %s, not %s", in.taskID, info.ContextID, in.contextID))
	}
	return nil
}

// register keeps a task's push config (push, or, for an answer, those
// kept already) and waits for the end of its turn to push it.
func (g *Gateway) register(rq *request, inv caller.Invocation, push *spec.PushConfig) {
	ctx, cancel := context.WithTimeout(context.Background(), registerTimeout)
	defer cancel()
	g.push.register(ctx, rq, inv, push)
}

// registerTimeout bounds a task's registration.
const registerTimeout = 5 * time.Second

// wait waits for the outcome of s's turn, until ctx ends (the client went
// away: the task goes on) or the gateway closes.
func (h *handler) wait(ctx context.Context, rq *request, s *started, onStatus caller.StatusFunc) (*caller.Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(h.g.ctx, cancel)
	defer stop()
	if s.watch != nil {
		return s.watch.Wait(ctx, onStatus)
	}
	return rq.caller.Wait(ctx, s.inv.TaskID, onStatus)
}

// follow yields s's status updates, then its outcome's events. It ends
// early, yielding nothing more, when the client goes away or the gateway
// closes (a client then resubscribes, to any replica).
func (h *handler) follow(ctx context.Context, rq *request, s *started, yield func(spec.Event, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gone := false
	out, err := h.wait(ctx, rq, s, func(st *a2a.TaskStatus) {
		if !gone && !yield(statusEvent(s.inv, st), nil) {
			gone = true
			cancel()
		}
	})
	switch {
	case gone || ctx.Err() != nil || h.g.ctx.Err() != nil:
		return
	case err != nil:
		yield(nil, h.g.refusal(rq, "wait for task "+s.inv.TaskID, err))
		return
	}
	for _, ev := range finalEvents(out.Invocation, out.Result) {
		if !yield(ev, nil) {
			return
		}
	}
}
