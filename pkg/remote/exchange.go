// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// Handle runs one turn of a bus task on the remote — the handler Register
// gives every skill of the card: the message is sent
// (streamed when the remote streams), the remote task is followed until it
// ends its turn, transient failures are retried within the deadline, and a
// task that ends early (cancel, deadline, shutdown) cancels the remote's.
func (b *Bridge) Handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	client, card, err := b.current(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, b.failure(err)
	}
	msg, asked, err := b.message(t)
	if err != nil {
		return nil, err
	}
	x := &exchange{b: b, t: t, client: client, card: card, streaming: card.Capabilities.Streaming, msg: msg,
		taskID: msg.TaskID, contextID: msg.ContextID, asked: asked, artifacts: map[spec.ArtifactID]int{}, known: make(chan struct{})}
	if x.taskID != "" { // a later turn: the remote task is known
		x.knownOnce.Do(func() { close(x.known) })
	}
	res, err := x.run(ctx)
	if ctx.Err() != nil && x.taskID != "" && !x.ended {
		x.cancelRemote(ctx)
	}
	return res, err
}

// exchange is one turn of a bus task on the remote.
type exchange struct {
	b         *Bridge
	t         *agent.Task
	client    *a2aclient.Client
	card      *spec.AgentCard
	streaming bool
	msg       *spec.Message

	taskID    spec.TaskID // the remote task, once known
	contextID string
	asked     remoteIDs // on a later turn, the question it answers
	moved     bool      // the remote task was seen in a state that does not wait for input
	state     spec.TaskState
	status    *spec.Message    // the message of the newest status
	reply     *spec.Message    // a message the remote answered with instead of a task
	arts      []*spec.Artifact // in the order they came
	artifacts map[spec.ArtifactID]int
	sent      bool          // the remote answered the message: a retry follows the task, not sending it again
	ended     bool          // the remote task ended its turn (or answered with a message)
	known     chan struct{} // closed once taskID is known
	knownOnce sync.Once
	attempts  int
}

// run sends the message and follows the task until it ends its turn,
// retrying transient failures: once the remote task is known, a retry reads
// it again (and resubscribes) instead of sending the message again.
func (x *exchange) run(ctx context.Context) (*agent.Result, error) {
	deadline, bounded := ctx.Deadline()
	margin := retryMargin(time.Until(deadline))
	for {
		x.attempts++
		err := x.attempt(ctx)
		if err == nil {
			return x.outcome()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		wait, transient := retryable(err)
		if !transient {
			return nil, x.b.failure(err)
		}
		delay := max(wait, x.b.delay(x.attempts-1))
		if bounded && time.Until(deadline) < delay+margin {
			return nil, x.b.deadlineError(err, x.attempts)
		}
		x.b.log.Debug("remote call failed transiently: retrying", zap.String("task", x.t.Request.TaskID), zap.Int("attempt", x.attempts),
			zap.Duration("after", delay), zap.Error(err))
		if !backoff.Sleep(ctx, delay) {
			return nil, ctx.Err()
		}
	}
}

// retryMargin is the time a retry must leave before the task's deadline
// (left, at the start): a retry that would fail only after the deadline
// would answer TIMEOUT instead of the failure that kept the remote from
// answering. A quarter of the time left, at most a second.
func retryMargin(left time.Duration) time.Duration { return max(min(left/4, time.Second), 0) }

// attempt is one try: nil once the remote task ended its turn.
func (x *exchange) attempt(ctx context.Context) error {
	if x.sent && x.taskID != "" { // the remote has it: follow it, do not send it again
		return x.resume(ctx)
	}
	req := &spec.SendMessageRequest{Message: x.msg}
	sendCtx, stop := x.detach(ctx)
	defer stop()
	if x.streaming {
		sendCtx, done := x.b.startCall(sendCtx, "stream", x.t.Trace)
		err := x.follow(sendCtx, x.client.SendStreamingMessage(sendCtx, req))
		done(err)
		return err
	}
	req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
	sendCtx, done := x.b.startCall(sendCtx, "send", x.t.Trace)
	res, err := x.client.SendMessage(sendCtx, req)
	done(err)
	if err != nil {
		return err
	}
	x.sent = true
	switch r := res.(type) {
	case *spec.Message:
		x.reply, x.ended = r, true
	case *spec.Task:
		x.absorbTask(r)
	}
	if x.ended {
		return nil
	}
	return x.poll(ctx)
}

// detach returns the context of a call that sends the message: it
// outlives ctx's end (a cancel, the deadline) until the remote task is
// known or CancelTimeout has passed, so that a task cancelled while its
// message is on the way still has the remote's cancelled. stop ends it.
func (x *exchange) detach(ctx context.Context) (context.Context, func()) {
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := make(chan struct{})
	go func() {
		select {
		case <-stop:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(x.b.opts.CancelTimeout)
		defer t.Stop()
		select {
		case <-x.known:
		case <-t.C:
		case <-stop:
		}
		cancel()
	}()
	var once sync.Once
	return cctx, func() { once.Do(func() { close(stop); cancel() }) }
}

// resume reads the known task again: ended, or followed on (its stream
// when the remote streams, else polled).
func (x *exchange) resume(ctx context.Context) error {
	if err := x.get(ctx); err != nil || x.ended {
		return err
	}
	if !x.streaming {
		return x.poll(ctx)
	}
	sctx, done := x.b.startCall(ctx, "subscribe", x.t.Trace)
	err := x.follow(sctx, x.client.SubscribeToTask(sctx, &spec.SubscribeToTaskRequest{ID: x.taskID}))
	done(err)
	if _, transient := retryable(err); err != nil && !transient && ctx.Err() == nil {
		// A task that ended between the read and the subscription is refused
		// a subscription by some servers: read it once more.
		if gerr := x.get(ctx); gerr == nil && x.ended {
			return nil
		}
	}
	return err
}

// get reads the remote task once.
func (x *exchange) get(ctx context.Context) error {
	ctx, done := x.b.startCall(ctx, "get", x.t.Trace)
	task, err := x.client.GetTask(ctx, &spec.GetTaskRequest{ID: x.taskID})
	done(err)
	if err != nil {
		return err
	}
	x.absorbTask(task)
	return nil
}

// poll reads the task every PollInterval until it ends its turn.
func (x *exchange) poll(ctx context.Context) error {
	for !x.ended {
		if !backoff.Sleep(ctx, x.b.opts.PollInterval) {
			return ctx.Err()
		}
		if err := x.get(ctx); err != nil {
			return err
		}
	}
	return nil
}

// follow reads a stream of events until the task ends its turn; a stream
// that ends before is errStreamEnded (the task is then read again).
func (x *exchange) follow(ctx context.Context, events iter.Seq2[spec.Event, error]) error {
	for ev, err := range events {
		if err != nil {
			return err
		}
		x.sent = true
		switch e := ev.(type) {
		case *spec.Message:
			x.reply, x.ended = e, true
		case *spec.Task:
			x.absorbTask(e)
		case *spec.TaskStatusUpdateEvent:
			x.setIDs(e.TaskID, e.ContextID)
			x.setStatus(e.Status)
			if text := a2a.MessageText(e.Status.Message); text != "" && !x.ended {
				_ = x.t.Progress(ctx, text, -1) // status is advisory
			}
		case *spec.TaskArtifactUpdateEvent:
			x.setIDs(e.TaskID, e.ContextID)
			if e.Artifact != nil {
				x.addArtifact(e.Artifact, e.Append)
				_ = x.t.Progress(ctx, "artifact "+cmp.Or(e.Artifact.Name, string(e.Artifact.ID)), -1)
			}
		}
		if x.ended {
			return nil
		}
	}
	if x.taskID == "" {
		return fmt.Errorf("%w (and named no task)", errStreamEnded)
	}
	return errStreamEnded
}

// absorbTask takes a task's ids, state and artifacts (its list replaces
// those streamed so far: it is the remote's own record).
func (x *exchange) absorbTask(task *spec.Task) {
	if task == nil {
		return
	}
	x.setIDs(task.ID, task.ContextID)
	if len(task.Artifacts) > 0 {
		x.arts, x.artifacts = nil, map[spec.ArtifactID]int{}
		for _, a := range task.Artifacts {
			x.addArtifact(a, false)
		}
	}
	x.setStatus(task.Status)
}

func (x *exchange) setIDs(task spec.TaskID, contextID string) {
	if task != "" && x.taskID != task {
		x.taskID = task
		x.knownOnce.Do(func() { close(x.known) })
		x.b.turns.remember(x.t.Request.TaskID, remoteIDs{Task: task, Context: contextID})
	}
	if contextID != "" {
		x.contextID = contextID
	}
}

// setStatus records a status; a state that ends the turn ends the exchange.
func (x *exchange) setStatus(st spec.TaskStatus) {
	if st.State == spec.TaskStateUnspecified || x.stale(st) {
		return
	}
	x.moved = x.moved || !a2a.WaitsForInput(st.State)
	x.state = st.State
	if st.Message != nil {
		x.status = st.Message
	}
	x.ended = x.ended || a2a.EndsTurn(st.State)
}

// addArtifact adds an artifact, or appends its parts to the one of its id.
func (x *exchange) addArtifact(a *spec.Artifact, appendParts bool) {
	if a == nil {
		return
	}
	i, ok := x.artifacts[a.ID]
	switch {
	case ok && appendParts:
		merged := *x.arts[i]
		merged.Parts = append(append(spec.ContentParts{}, merged.Parts...), a.Parts...)
		x.arts[i] = &merged
	case ok:
		x.arts[i] = a
	default:
		x.artifacts[a.ID] = len(x.arts)
		x.arts = append(x.arts, a)
	}
}

// cancelRemote forwards the bus task's end to the remote task (bounded by
// CancelTimeout); the remote's answer is only logged.
func (x *exchange) cancelRemote(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), x.b.opts.CancelTimeout)
	defer cancel()
	cctx, done := x.b.startCall(cctx, "cancel", x.t.Trace)
	task, err := x.client.CancelTask(cctx, &spec.CancelTaskRequest{ID: x.taskID})
	done(err)
	state := spec.TaskStateUnspecified
	if task != nil {
		state = task.Status.State
	}
	if err != nil && !errors.Is(err, spec.ErrTaskNotCancelable) {
		x.b.log.Warn("remote task not canceled", zap.String("task", x.t.Request.TaskID), zap.String("remote_task", string(x.taskID)), zap.Error(err))
		return
	}
	x.b.log.Info("remote task canceled", zap.String("task", x.t.Request.TaskID), zap.String("remote_task", string(x.taskID)),
		zap.String("state", string(state)), zap.Error(context.Cause(ctx)))
}
