// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// driver runs one conversation on the goroutine of Drive: the only writer
// of its record while it holds the lease.
type driver struct {
	o    *Orchestrator
	c    *Conversation
	wake chan struct{}
	// watch follows the task this driver invoked last (InvokeWatched: its
	// outcome is seen at once); a task invoked by an earlier driver is
	// waited for with Caller.Wait.
	watch *caller.Watch
	// waiting is the wait for a slot announced last ("" when none).
	waiting string
}

// invoke invokes req, watching the task. A call that working memory
// failed (the task could not be recorded, so it was not sent) is made again
// while the outage lasts, within the bound.
func (d *driver) invoke(ctx context.Context, req caller.Request) (inv caller.Invocation, err error) {
	d.unwatch()
	err = d.o.st.retry(ctx, "invoke "+req.Target, d.c.ID, func(ctx context.Context) (err error) {
		var w *caller.Watch
		inv, w, err = d.o.opts.Caller.InvokeWatched(ctx, req)
		d.watch = w
		return err
	})
	return inv, err
}

// unwatch stops watching the last task.
func (d *driver) unwatch() {
	if d.watch != nil {
		d.watch.Close()
		d.watch = nil
	}
}

// errInterrupted: a wait ended because the conversation ended (stop, a limit).
var errInterrupted = errors.New("converse: interrupted")

// run steps the state machine until the conversation ends or ctx does.
func (d *driver) run(ctx context.Context) error {
	defer d.unwatch()
	if !d.c.State.Terminal() {
		if err := d.o.opts.Policy.Check(d.c.Spec, d.o.name); err != nil {
			return quiet(d.end(ctx, Failed, "", redact.String(err.Error())))
		}
	}
	for {
		if err := d.applyControls(ctx); err != nil {
			return err
		}
		if d.c.State.Terminal() {
			return nil
		}
		if done, err := d.checkLimits(ctx); done || err != nil {
			return quiet(err)
		}
		if d.c.Paused {
			if err := d.idle(ctx); err != nil {
				return err
			}
			continue
		}
		var err error
		switch d.c.State {
		case Idle:
			err = d.transition(ctx, Planning, "started")
		case Planning:
			err = d.plan(ctx)
		case WaitingLocal:
			err = d.draft(ctx)
		case ReadyToSend:
			err = d.ready(ctx)
		case WaitingRemote:
			err = d.send(ctx)
		case ProcessingRemote:
			d.c.Pending = nil
			err = d.transition(ctx, Planning, "")
		default:
			err = d.end(ctx, Failed, "", fmt.Sprintf("unknown state %q in the record", d.c.State))
		}
		if err != nil && !errors.Is(err, errInterrupted) {
			return err
		}
	}
}

// quiet drops errInterrupted: the conversation ended as it should.
func quiet(err error) error {
	if errors.Is(err, errInterrupted) {
		return nil
	}
	return err
}

// emit records an event and passes it to OnEvent.
func (d *driver) emit(kind, text, limit string) {
	e := d.c.event(d.o.opts.Now().UTC(), kind, text, limit)
	if d.o.opts.OnEvent != nil {
		d.o.opts.OnEvent(d.c, e)
	}
}

// save writes the record.
func (d *driver) save(ctx context.Context) error {
	d.c.UpdatedAt = d.o.opts.Now().UTC()
	return d.o.st.save(ctx, d.c)
}

// transition moves to state s and saves.
func (d *driver) transition(ctx context.Context, s State, text string) error {
	d.c.State = s
	d.emit(EventState, text, "")
	return d.save(ctx)
}

// deadline is when max_duration ends the conversation.
func (d *driver) deadline() time.Time { return d.c.CreatedAt.Add(d.c.Spec.Limits.MaxDuration) }

// checkLimits ends the conversation when a limit is reached: max_duration
// at any time, max_turns and token_budget before a new turn or send.
func (d *driver) checkLimits(ctx context.Context) (bool, error) {
	l, c := d.c.Spec.Limits, d.c
	var limit, text string
	switch {
	case !d.o.opts.Now().Before(d.deadline()):
		limit, text = LimitMaxDuration, fmt.Sprintf("limit reached: max duration %s", l.MaxDuration)
	case c.State == Planning && c.Exchanges >= l.MaxTurns:
		limit, text = LimitMaxTurns, fmt.Sprintf("limit reached: max turns %d", l.MaxTurns)
	case (c.State == Planning || c.State == ReadyToSend) && l.TokenBudget > 0 && c.TokensUsed >= l.TokenBudget:
		limit, text = LimitTokenBudget, fmt.Sprintf("limit reached: token budget %d (used %d)", l.TokenBudget, c.TokensUsed)
	default:
		return false, nil
	}
	d.emit(EventLimit, text, limit)
	return true, d.end(ctx, Completed, limit, text)
}

// end finishes the conversation in state s, canceling a call in flight.
func (d *driver) end(ctx context.Context, s State, limit, reason string) error {
	c := d.c
	if p := c.Pending; p != nil {
		for _, id := range []string{p.RemoteTaskID, p.LocalTaskID} {
			if id != "" {
				_ = d.o.opts.Caller.Cancel(ctx, id) // best effort: it may have ended
			}
		}
	}
	c.State, c.Limit, c.Reason, c.EndedAt = s, limit, reason, d.o.opts.Now().UTC()
	d.emit(EventFinished, reason, limit)
	d.o.log.Info("converse finished", zap.String("conversation", c.ID), zap.String("state", string(s)),
		zap.String("limit", limit), zap.String("cause", c.Cause), zap.String("reason", redact.String(reason)), zap.Int("exchanges", c.Exchanges),
		zap.Int64("tokens_used", c.TokensUsed), zap.String("mode", string(c.Spec.Mode)),
		zap.String("local", c.Spec.Local), zap.String("remote", c.Spec.Remote), zap.String("orchestrator", c.Orchestrator),
		zap.Duration("duration", c.EndedAt.Sub(c.CreatedAt)))
	if err := d.save(ctx); err != nil {
		return err
	}
	return errInterrupted
}

// idle waits for a control, the poll interval or the duration limit.
func (d *driver) idle(ctx context.Context) error {
	return d.pause(ctx, min(d.o.opts.PollInterval, max(time.Until(d.deadline()), time.Millisecond)))
}

// pause waits wait, or less when a control wakes the driver or ctx ends
// (then it returns the context's cause).
func (d *driver) pause(ctx context.Context, wait time.Duration) error {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-d.wake:
	case <-t.C:
	}
	return nil
}

// plan opens the next turn: a draft request, or a human-written message
// after takeover.
func (d *driver) plan(ctx context.Context) error {
	c := d.c
	c.Pending = &Pending{Turn: c.Exchanges + 1}
	if c.TakenOver {
		c.Pending.Review = "takeover"
		c.State = ReadyToSend
		d.emit(EventReview, "taken over: waiting for a human-written message (approve --text)", "")
		return d.save(ctx)
	}
	return d.transition(ctx, WaitingLocal, "")
}

// meta is the control envelope of a call (the request's handoff).
func (d *driver) meta(turn, hops int) []byte {
	c := d.c
	return fmt.Appendf(nil, `{"converse":{"conversationId":%q,"turnIndex":%d,"mode":%q,"originAgent":%q,"orchestrator":%q,"traceId":%q,"hopCount":%d}}`,
		c.ID, turn, c.Spec.Mode, c.Spec.Local, c.Orchestrator, c.TraceID, hops)
}

// draft asks the local agent for the turn's message, or waits for it.
func (d *driver) draft(ctx context.Context) error {
	c, p := d.c, d.c.Pending
	lock, ok, err := d.hold(ctx, promptKeys, 1,
		fmt.Sprintf("waiting: %s has a draft request in flight (one at a time per local agent)", c.Spec.Local))
	if !ok {
		return err
	}
	defer lock.release(ctx)
	if p.LocalTaskID == "" {
		req := draftRequest(c, p.Turn)
		input, err := jsonMarshal(req)
		if err != nil {
			return err
		}
		inv, err := d.invoke(ctx, caller.Request{
			Target: c.Spec.Local, Skill: c.Spec.LocalSkill, Text: req.Prompt(), Input: input,
			SessionID: c.Session, CorrelationID: c.ID, Timeout: c.Spec.Limits.LocalTimeout,
			Handoff: d.meta(p.Turn, len(c.Spec.Chain)), CallChain: c.Spec.Chain,
		})
		if err != nil && !errors.Is(err, caller.ErrOutcomeUnknown) {
			return d.failure(ctx, "local", "", 0, err)
		}
		p.LocalTaskID, p.LocalAt = inv.TaskID, d.o.opts.Now().UTC()
		if err := d.save(ctx); err != nil {
			return err
		}
	}
	out, err := d.await(ctx, p.LocalTaskID)
	lock.release(ctx)
	if err != nil {
		return err
	}
	took := d.o.opts.Now().Sub(p.LocalAt)
	if ferr := out.Err(); ferr != nil {
		return d.failure(ctx, "local", p.LocalTaskID, took, ferr)
	}
	r := out.Result
	c.TokensUsed += r.Metadata.TokensUsed
	d.audit("local", p.LocalTaskID, took, "SUCCESS", "", r)
	if done, _ := r.Metadata.Extra["done"].(bool); done {
		return d.end(ctx, Completed, "", fmt.Sprintf("%s ended the conversation", c.Spec.Local))
	}
	text := r.Text()
	if text == "" {
		return d.failure(ctx, "local", p.LocalTaskID, took, a2a.NewError(a2a.CodeExecutionFailed, "the draft is empty"))
	}
	if cutText, cutOK := cut(text, c.Spec.History.MaxOutputChars); cutOK {
		text = cutText
		d.emit(EventDraft, fmt.Sprintf("draft cut to max_output_chars %d", c.Spec.History.MaxOutputChars), "")
	}
	c.Failures = 0
	p.Draft, p.Confidence, p.HasDraft, p.LocalTaskID = text, r.Confidence, true, ""
	p.Review, p.How = d.review(r.Confidence), SentAuto
	c.State = ReadyToSend
	d.emit(EventDraft, text, "")
	if p.Review != "" {
		d.emit(EventReview, fmt.Sprintf("waiting for approval (%s): approve, or approve --text EDITED", p.Review), "")
	}
	return d.save(ctx)
}

// review says why a draft waits for approval, "" when it is sent as it is.
func (d *driver) review(conf a2a.Confidence) string {
	switch {
	case d.c.TakenOver:
		return "takeover"
	case d.c.Spec.Mode == Manual:
		return "manual"
	case d.c.Spec.Mode == SemiAuto && confidenceRank(conf) < confidenceRank(d.c.Spec.Threshold):
		return fmt.Sprintf("confidence %q below %s", conf, d.c.Spec.Threshold)
	}
	return ""
}

// ready sends an approved draft, or waits for the approval.
func (d *driver) ready(ctx context.Context) error {
	p := d.c.Pending
	if p.Review != "" {
		return d.idle(ctx)
	}
	p.Attempt++
	p.RemoteTaskID = ""
	return d.transition(ctx, WaitingRemote, "")
}

// send makes the turn's send — exactly once per attempt, whichever process
// drives — and waits for the reply.
func (d *driver) send(ctx context.Context) error {
	c, p := d.c, d.c.Pending
	n := d.o.opts.MaxSharedCalls
	shared, ok, err := d.hold(ctx, sharedKeys, n,
		fmt.Sprintf("waiting: %s has %d shared calls in flight (max_shared_calls %d)", c.Spec.Local, n, n))
	if !ok {
		return err
	}
	defer shared.release(ctx)
	if p.RemoteTaskID == "" {
		claimed, err := d.o.st.claimSend(ctx, c.ID, p.Turn, p.Attempt, d.o.opts.InstanceID)
		if err != nil {
			return err
		}
		if !claimed {
			// A driver died between marking this send and saving its task:
			// the caller's records tell whether it was made.
			id, err := d.findSend(ctx)
			if err != nil {
				return err
			}
			p.RemoteTaskID = id
		}
		if p.RemoteTaskID == "" {
			inv, err := d.invoke(ctx, caller.Request{
				Target: c.Spec.Remote, Skill: c.Spec.RemoteSkill, Text: p.Draft,
				SessionID: c.Session, CorrelationID: c.ID, Timeout: c.Spec.Limits.RemoteTimeout,
				Handoff: d.meta(p.Turn, hopCount(c.Spec)), CallChain: append(append([]string(nil), c.Spec.Chain...), c.Spec.Local),
			})
			if err != nil && !errors.Is(err, caller.ErrOutcomeUnknown) {
				return d.failure(ctx, "remote", "", 0, err)
			}
			p.RemoteTaskID = inv.TaskID
		}
		p.SentAt = d.o.opts.Now().UTC()
		d.emit(EventSent, p.Draft, "")
		if err := d.save(ctx); err != nil {
			return err
		}
	}
	out, err := d.await(ctx, p.RemoteTaskID)
	shared.release(ctx)
	if err != nil {
		return err
	}
	took := d.o.opts.Now().Sub(p.SentAt)
	if ferr := out.Err(); ferr != nil {
		return d.failure(ctx, "remote", p.RemoteTaskID, took, ferr)
	}
	r := out.Result
	role := RoleLocal
	if p.How == SentHuman {
		role = RoleHuman
	}
	now := d.o.opts.Now().UTC()
	c.Transcript = append(c.Transcript,
		Entry{Turn: p.Turn, Role: role, Text: p.Draft, Confidence: p.Confidence, How: p.How, At: p.SentAt},
		Entry{Turn: p.Turn, Role: RoleRemote, Text: r.Text(), TaskID: p.RemoteTaskID, Confidence: r.Confidence,
			TokensUsed: r.Metadata.TokensUsed, At: now, DurationMs: took.Milliseconds()})
	c.TokensUsed += r.Metadata.TokensUsed
	c.Exchanges++
	c.Failures = 0
	d.audit("remote", p.RemoteTaskID, took, "SUCCESS", "", r)
	d.emit(EventReply, r.Text(), "")
	return d.transition(ctx, ProcessingRemote, "")
}

// findSend looks in the caller's records (pending tasks, then the session's
// call history) for the send of this conversation to the remote agent that
// no turn accounts for; "" when it was never made.
func (d *driver) findSend(ctx context.Context) (string, error) {
	c := d.c
	known := c.sentTasks()
	for _, id := range c.FailedSends {
		known[id] = true
	}
	var pending []string
	err := d.o.st.retry(ctx, "look for the last send", c.ID, func(ctx context.Context) (err error) {
		pending, err = caller.PendingTasks(ctx, d.o.opts.Memory, d.o.name, 10_000)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("converse: look for the last send of %s: %w", c.ID, err)
	}
	for _, id := range pending {
		if known[id] {
			continue
		}
		info, err := d.o.opts.Caller.Task(ctx, id)
		if err != nil {
			continue // finalized or expired since: the history has it
		}
		if info.SessionID == c.Session && a2a.SameAgent(info.Target, c.Spec.Remote) {
			return id, nil
		}
	}
	var hist []caller.HistoryEntry
	err = d.o.st.retry(ctx, "look for the last send", c.ID, func(ctx context.Context) (err error) {
		hist, err = caller.History(ctx, d.o.opts.Memory, c.Session)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("converse: look for the last send of %s: %w", c.ID, err)
	}
	for i := len(hist) - 1; i >= 0; i-- {
		e := hist[i]
		if a2a.SameAgent(e.Caller, d.o.name) && a2a.SameAgent(e.Target, c.Spec.Remote) &&
			e.Status != caller.HistoryRefused && !known[e.TaskID] {
			return e.TaskID, nil
		}
	}
	return "", nil
}

// await waits for task id's outcome, applying controls as they come; it
// ends early (errInterrupted) when a control or the duration limit ends
// the conversation.
func (d *driver) await(ctx context.Context, id string) (*caller.Outcome, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		out *caller.Outcome
		err error
	}
	ch := make(chan result, 1)
	wait := d.o.opts.Caller.Wait
	// The waiting goroutine may outlive this call (an interruption returns
	// at once), and the driver's watch with it: it uses this one.
	if w := d.watch; w != nil && w.Invocation().TaskID == id {
		wait = func(ctx context.Context, _ string, f caller.StatusFunc) (*caller.Outcome, error) {
			return w.Wait(ctx, f)
		}
	}
	st, conv := d.o.st, d.c.ID
	go func() {
		var out *caller.Outcome
		err := st.retry(wctx, "wait for task "+id, conv, func(ctx context.Context) (err error) {
			out, err = wait(ctx, id, nil)
			return err
		})
		ch <- result{out, err}
	}()
	limit := time.NewTimer(max(time.Until(d.deadline()), 0))
	defer limit.Stop()
	poll := time.NewTicker(d.o.opts.PollInterval)
	defer poll.Stop()
	for {
		select {
		case r := <-ch:
			if r.err != nil {
				return nil, fmt.Errorf("converse: wait for task %s of %s: %w", id, d.c.ID, r.err)
			}
			return r.out, nil
		case <-d.wake:
		case <-poll.C:
		case <-limit.C:
			if _, err := d.checkLimits(ctx); err != nil {
				return nil, err
			}
			continue
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if err := d.applyControls(ctx); err != nil {
			return nil, err
		}
		if d.c.State.Terminal() {
			return nil, errInterrupted
		}
	}
}

// audit logs one call of the conversation.
func (d *driver) audit(phase, taskID string, took time.Duration, status, reason string, r *caller.StoredResult) {
	c := d.c
	fields := []zap.Field{
		zap.String("conversation", c.ID), zap.Int("turn", c.turn()), zap.String("phase", phase),
		zap.String("mode", string(c.Spec.Mode)), zap.String("local", c.Spec.Local), zap.String("remote", c.Spec.Remote),
		zap.String("orchestrator", c.Orchestrator), zap.String("requester", c.Spec.Requester),
		zap.String("task_id", taskID), zap.Int64("duration_ms", took.Milliseconds()), zap.String("status", status),
	}
	if reason != "" {
		fields = append(fields, zap.String("reason", reason))
	}
	if r != nil {
		fields = append(fields, zap.String("confidence", string(r.Confidence)), zap.Int64("tokens_used", r.Metadata.TokensUsed))
	}
	d.o.log.Info("converse call", fields...)
}
