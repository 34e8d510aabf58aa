// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Request is one invocation of an agent's skill.
type Request struct {
	Target string
	Skill  string
	// Text is the message sent to the agent.
	Text string
	// Input is optional structured input (a JSON value).
	Input json.RawMessage
	// SessionID is the conversation the result is notified into; default a new one.
	SessionID string
	// ContextID groups related tasks into one conversation with the agents
	// (A2A's contextId): a task in a context gets the earlier tasks'
	// request messages and final answers (agent.Task.ContextHistory).
	// Empty makes a new context, returned in Invocation.ContextID; pass it
	// to the next Request to continue the conversation. Validated as a
	// session id (a2a.ValidateContextID).
	ContextID string
	// Timeout is the time allowed for the result — with a wait bound, the
	// time the task may run once an agent took it; 0 means the default, it
	// is clamped to the maximum.
	Timeout time.Duration
	// WaitTimeout is how long the task may wait in its queue for an agent
	// to take it (a KEDA job that starts for it), apart from Timeout; 0
	// means the target's default (WaitBounds, else Options.DefaultWait),
	// clamped to Options.MaxWait. With no wait bound at all, Timeout covers
	// the wait and the run together. See queuewait.go.
	WaitTimeout time.Duration
	Priority    a2a.Priority
	// CorrelationID groups the calls of one workflow.
	CorrelationID string
	// Handoff is context passed to the agent untouched (a JSON value).
	Handoff json.RawMessage
	// CallChain is the chain of agents that led to this call (origin first), not including the caller.
	CallChain []string
	Trace     a2a.Trace
	// AllowNestedCalls false forbids the target to call other agents for this
	// task (its calls are refused with FORBIDDEN); nil means allowed (the
	// default of SDK calls; invoke_agent, the LLM's tool, defaults to false).
	AllowNestedCalls *bool
	// CallerContext, when set, sends the part of SessionID's conversation it
	// chooses with the task (the agent's Task.CallerContext): the newest
	// messages that fit MaxContextTokens (DefaultCallerContextTokens when
	// 0). SessionID is required with it (a new session has no conversation).
	// Too large for the message limit, it goes by reference to working
	// memory. An LLM agent then uses it, through its own filter, instead of
	// reading the session's conversation itself; empty, it gets none.
	CallerContext *ContextFilter
	// MaxContextTokens, when above 0, caps the agent's model context budget
	// for the task (it uses the smaller of this and its own) and bounds
	// the caller context sent.
	MaxContextTokens int
	// AllowedTools, when not nil, narrows the tools the agent may use for
	// the task to those of its own named here (an empty list allows none);
	// the agent's own configuration stays the ceiling.
	AllowedTools []string
	// Stream asks the agent for status updates before its reply; Call sets
	// it when it has a StatusFunc, and a sub-call inherits its task's.
	Stream bool
	// RecordAlso, when set, gives writes of the caller's user (the gateway
	// lists the task under its principal) that go in the batch recording
	// the task: they are in working memory when Invoke returns, at no
	// extra round trip. It gets the new task's id; not sent to the agent.
	RecordAlso func(taskID string) []memory.Op
}

// Invocation is what Invoke (or Reply) returns at once.
type Invocation struct {
	TaskID    string
	SessionID string
	// ContextID is the task's context: the Request's, or a new one.
	ContextID string
	Target    string
	// MemoryKey is where the result will be stored.
	MemoryKey string
	// Deadline is when the current turn's answer is due.
	Deadline time.Time
	// StartBy is when the first turn's request may be taken from its queue
	// at the latest; zero without a wait bound.
	StartBy time.Time
	// Turn is 0 for Invoke, n for the n-th Reply to the task's questions.
	Turn int
}

// Invoke records the task durably and publishes it; it returns the task id
// and the memory key at once. A bad request is an error wrapping
// ErrInvalidRequest that names the field. A publish whose outcome is
// unknown (bus.ErrNotConfirmed: the broker may have taken it) is an error
// wrapping ErrOutcomeUnknown returned with the Invocation: the task is
// kept, so Wait ends with its answer or its TIMEOUT. Any other error means
// not sent: the task was withdrawn (claimed "unsent") before Invoke
// returned, so nothing can run or time it out later.
func (c *Caller) Invoke(ctx context.Context, req Request) (_ Invocation, err error) {
	defer func() { c.recordRefusal(ctx, req, err) }() // a refused call is an outcome too (audit)
	if c.isClosed() {
		return Invocation{}, ErrClosed
	}
	tr, rec, err := c.buildRequest(ctx, req)
	if err != nil {
		return Invocation{}, err
	}
	return c.send(ctx, tr, rec, req.Trace)
}

// send records the task (its record, and its deadline in the pending index, in one batch) and
// publishes its request, once Options.Guard admitted it.
func (c *Caller) send(ctx context.Context, tr *a2a.TaskRequest, rec *Record, trace a2a.Trace) (_ Invocation, err error) {
	sessionOps, err := c.sessionOps(ctx, rec) // may this caller start a task in the session? (sessions.go)
	if err != nil {
		return Invocation{}, err
	}
	if err := c.admit(tr); err != nil {
		return Invocation{}, err
	}
	defer func() {
		if err != nil && !errors.Is(err, ErrOutcomeUnknown) {
			c.guardAbandon(tr.TaskID) // not sent: the guard's slot is free again
		}
	}()
	respSpec, err := c.responseQueue()
	if err != nil {
		return Invocation{}, err
	}
	taskSpec, err := bus.TaskQueue(tr.Target)
	if err != nil {
		return Invocation{}, err
	}
	// The response queue must exist before the agent answers, and the task
	// queue before the publish, so a task for a scaled-to-zero agent waits.
	for _, s := range []bus.QueueSpec{respSpec, taskSpec} {
		if err := c.declare(ctx, s); err != nil {
			return Invocation{}, err
		}
	}
	if now := c.opts.Now(); !now.Before(rec.Deadline) {
		// Everything before the publish (session, admission, declares) took
		// the whole time allowed: a TIMEOUT refusal, not a request found invalid.
		return Invocation{}, fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, tr.Target, tr.Skill,
			a2a.NewError(a2a.CodeTimeout, "its deadline passed before it could be sent (%s after it was made, %s allowed)",
				now.Sub(rec.CreatedAt).Round(time.Millisecond), rec.Deadline.Sub(rec.CreatedAt).Round(time.Millisecond)))
	}
	trace, observed := c.observeInvoke(ctx, tr, trace)
	defer func() { observed(err) }()
	env, spilled, err := c.encodeRequest(tr, trace)
	if err != nil {
		return Invocation{}, fmt.Errorf("caller %q: encode task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	rec.CallerContext = tr.CallerContext // its key, when it went to working memory
	recTTL := time.Until(rec.Deadline) + c.opts.ResultTTL
	recJSON, err := rec.encode()
	if err != nil {
		return Invocation{}, fmt.Errorf("caller %q: encode record of task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	recKey, err := memory.TaskRecordKey(c.opts.Name, rec.TaskID)
	if err != nil {
		return Invocation{}, fmt.Errorf("caller %q: record task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	ops := append(make([]memory.Op, 0, 2+len(sessionOps)+len(spilled)+2), // +2: rec.also's (the gateway's list entry)
		memory.SetOp(recKey, recJSON, recTTL),
		memory.IndexAddOp(c.pending, rec.TaskID, rec.firstSweep().UnixMilli()))
	ops = append(append(ops, sessionOps...), spilled...)
	if rec.also != nil {
		ops = append(ops, rec.also(rec.TaskID)...)
		rec.also = nil // asked once: the record kept in this process (c.local) does not hold its user's state
	}
	_, err = c.opts.Memory.Batch(ctx, ops...)
	if err != nil {
		// Part of the batch may have been applied all the same (a write that
		// failed unavailable may have landed; on a Redis Cluster the batch
		// spans primaries): the task is "not sent" only once withdrawn.
		if !c.withdraw(ctx, rec) {
			return rec.invocation(), fmt.Errorf("caller %q: record task %s: %w: it was not published, but its withdrawal failed, so part of its record may stand and the sweeper time it out; wait for it (a2abus wait %s): %w",
				c.opts.Name, rec.TaskID, ErrOutcomeUnknown, rec.TaskID, err)
		}
		return Invocation{}, fmt.Errorf("caller %q: record task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	c.local.put(rec, c.opts.Now())
	c.ownedSession(rec)
	err = ctx.Err() // ended before the publish: surely not sent
	if err == nil {
		err = c.opts.Bus.Publish(ctx, bus.Message{Envelope: env, RoutingKey: taskSpec.Name})
	}
	if err != nil {
		kept := errors.Is(err, bus.ErrNotConfirmed) && !errors.Is(err, bus.ErrUnroutable) && !errors.Is(err, bus.ErrNotSent)
		if !kept && !c.withdraw(ctx, rec) {
			kept = true // the sweeper timed it out first (or memory could not say): its outcome stands
		}
		if kept {
			// The broker may have taken it, or it already has its outcome:
			// keep the task, so that its answer is stored, or the sweeper
			// times it out.
			return rec.invocation(), fmt.Errorf("caller %q: publish task %s to %q: %w: the task is kept; wait for it (a2abus wait %s), its outcome will be at %q: %w",
				c.opts.Name, rec.TaskID, taskSpec.Name, ErrOutcomeUnknown, rec.TaskID, rec.MemoryKey, err)
		}
		return Invocation{}, fmt.Errorf("caller %q: publish task %s to %q: %w", c.opts.Name, rec.TaskID, taskSpec.Name, err)
	}
	if ce := c.log.Check(zap.DebugLevel, "task invoked"); ce != nil { // not logged: spare building the fields
		ce.Write(zap.String("task", rec.TaskID), zap.String("target", rec.Target), zap.String("skill", rec.Skill))
	}
	return rec.invocation(), nil
}

// withdrawBound bounds how long withdraw retries while working memory
// fails: long enough for a failover (a Redis Cluster promoting a replica).
const withdrawBound = memory.DefaultRetryBound

// errClaimedFirst ends withdraw's retries: another outcome claimed the task.
var errClaimedFirst = errors.New("caller: the task has another final outcome")

// withdraw forgets a task that was not sent — its publish surely failed, or
// its record batch failed, perhaps after part of it landed — before send
// returns, so that it has no outcome: it claims the task's final outcome
// (claimUnsent), the claim the sweeper needs to time it out, then deletes
// its record and pending entry. It retries while working memory fails, for
// withdrawBound (at most Options.MemoryRetryBound), and holds on even when
// ctx ends. It reports false, and the task is kept, when another outcome
// claimed it first (the sweeper's TIMEOUT, stored) or memory never answered:
// the task must then not be called "not sent".
func (c *Caller) withdraw(ctx context.Context, rec *Record) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(withdrawBound, c.opts.MemoryRetryBound))
	defer cancel()
	claimKey, err := memory.TaskClaimKey(c.opts.Name, rec.TaskID)
	recKey, kerr := memory.TaskRecordKey(c.opts.Name, rec.TaskID)
	if err = errors.Join(err, kerr); err != nil {
		c.log.Warn("unsent task kept: its withdrawal failed", zap.String("task", rec.TaskID), zap.Error(err))
		return false
	}
	claimed := false
	err = memory.Retry(ctx, 0, func(ctx context.Context) error {
		if !claimed {
			res, err := c.opts.Memory.Batch(ctx, c.claimOp(claimKey, claimUnsent))
			if err != nil {
				return err
			}
			if !res[0].Applied { // ours already (an earlier attempt landed unanswered), or another outcome's
				b, err := c.opts.Memory.Get(ctx, claimKey)
				if errors.Is(err, memory.ErrNotFound) { // gone meanwhile (a failover lost it): claim again
					return fmt.Errorf("%w: the claim of task %s vanished", memory.ErrUnavailable, rec.TaskID)
				}
				if err != nil {
					return err
				}
				if string(b) != claimUnsent {
					return errClaimedFirst
				}
			}
			claimed = true // from here on the sweeper cannot time it out
			c.local.drop(rec.TaskID)
		}
		_, err := c.opts.Memory.Batch(ctx, memory.IndexRemoveOp(c.pending, rec.TaskID), memory.DeleteOp(recKey))
		return err
	}, nil)
	if err != nil && !errors.Is(err, errClaimedFirst) {
		if claimed { // what is left the sweeper drops, finding the claim
			c.log.Info("unsent task withdrawn; its record is left to the sweeper", zap.String("task", rec.TaskID), zap.Error(err))
		} else {
			c.log.Warn("unsent task kept: its withdrawal failed", zap.String("task", rec.TaskID), zap.Error(err))
		}
	}
	return claimed
}

// withdrawn reports whether taskID's final claim is its caller's unsent: a
// withdrawal that landed although working memory failed to say so, so send
// returned the task kept (ErrOutcomeUnknown). Such a task has a record but
// never an outcome: its waiters end with ErrUnknownTask.
func (c *Caller) withdrawn(ctx context.Context, taskID string) bool {
	key, err := memory.TaskClaimKey(c.opts.Name, taskID)
	if err != nil {
		return false
	}
	b, err := c.opts.Memory.Get(ctx, key)
	return err == nil && string(b) == claimUnsent
}

// buildRequest validates req and builds the wire request and the record.
// With a Resolver the target is vetted and canonicalised first. Called from a
// handler (ctx carries its task), the request inherits the task's session,
// correlation id, call chain, handoff and trace, and its deadline is the earlier of
// its own and the task's. A call that would close a cycle or exceed
// MaxDepth is refused with CYCLE_DETECTED or DEPTH_EXCEEDED, and any call
// from a task that does not allow nested calls with FORBIDDEN.
func (c *Caller) buildRequest(ctx context.Context, req Request) (*a2a.TaskRequest, *Record, error) {
	parent, parentTrace, nested := a2a.TaskFromContext(ctx)
	if nested && parent.AllowNestedCalls != nil && !*parent.AllowNestedCalls {
		return nil, nil, fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, req.Target, req.Skill,
			a2a.NewError(a2a.CodeForbidden, "task %s does not allow nested calls", parent.TaskID))
	}
	if nested {
		if req.SessionID == "" {
			req.SessionID = parent.SessionID
		}
		if req.CorrelationID == "" {
			req.CorrelationID = cmp.Or(parent.CorrelationID, parent.TaskID)
		}
		if req.CallChain == nil {
			req.CallChain = parent.CallChain
		}
		if !req.Trace.Valid() {
			req.Trace = parentTrace
		}
		req.Stream = req.Stream || parent.Stream // the task's caller sees the sub-task's updates
		if req.Handoff == nil {
			req.Handoff = parent.Handoff // a workflow step's handoff context reaches its sub-calls too
		}
	}
	chain := append(append([]string(nil), req.CallChain...), c.opts.Name)
	if err := a2a.CheckChain(chain, c.opts.Name, req.Target, c.opts.MaxDepth); err != nil {
		return nil, nil, fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, req.Target, req.Skill, err)
	}
	if c.opts.Resolver != nil {
		name, err := c.opts.Resolver.Resolve(ctx, req.Target, req.Skill)
		if err != nil {
			return nil, nil, fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, req.Target, req.Skill, err)
		}
		req.Target = name
	}
	if err := c.checkInput(req); err != nil {
		return nil, nil, err
	}
	if err := checkNarrowing(req); err != nil { // callercontext.go
		return nil, nil, err
	}
	now := c.opts.Now()
	fresh := req.SessionID == ""
	if fresh && req.CallerContext != nil {
		return nil, nil, fmt.Errorf("%w: callerContext: a new session has no conversation to send; name the session (SessionID)", ErrInvalidRequest)
	}
	if fresh {
		req.SessionID = a2a.NewID()
	}
	timeout := req.Timeout
	switch {
	case timeout < 0:
		return nil, nil, fmt.Errorf("%w: timeout %s is negative", ErrInvalidRequest, timeout)
	case timeout == 0:
		timeout = c.opts.DefaultTimeout
	case timeout > c.opts.MaxTimeout:
		timeout = c.opts.MaxTimeout
	}
	if req.Text == "" && len(req.Input) == 0 {
		return nil, nil, fmt.Errorf("%w: text: a request needs a text or structured input", ErrInvalidRequest)
	}
	text := req.Text
	if text == "" {
		text = string(req.Input)
	}
	var contextHistory []*a2a.Message
	if req.ContextID == "" {
		req.ContextID = a2a.NewContextID()
	} else if err := a2a.ValidateContextID(req.ContextID); err != nil {
		return nil, nil, fmt.Errorf("%w: contextId: %w", ErrInvalidRequest, err)
	} else if !fresh {
		if contextHistory, err = c.loadContext(ctx, req.SessionID, req.ContextID); err != nil { // contexts.go
			return nil, nil, err
		}
	}
	var callerCtx *a2a.CallerContext
	if req.CallerContext != nil {
		var err error
		if callerCtx, err = c.callerContext(ctx, req.SessionID, req.CallerContext, req.MaxContextTokens, now); err != nil {
			return nil, nil, err
		}
	}
	wait, err := c.waitFor(req) // queuewait.go
	if err != nil {
		return nil, nil, err
	}
	var startBy time.Time
	if wait > 0 {
		startBy = now.Add(wait)
	}
	deadline := now.Add(wait + timeout)
	if end, ok := ctx.Deadline(); nested && ok && end.Before(parent.Deadline) {
		parent.Deadline = end // the task's run ends first (taken with a wait bound, or clamped by its agent)
	}
	if nested && parent.Deadline.Before(deadline) {
		// A sub-call never outlives its task: the time its task has left
		// bounds the wait and the run together.
		deadline, startBy = parent.Deadline, time.Time{}
	}
	tr := &a2a.TaskRequest{
		TaskID: a2a.NewID(), ContextID: req.ContextID, SessionID: req.SessionID,
		Caller: c.opts.Name, Target: req.Target, Skill: req.Skill,
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Input: req.Input, Priority: req.Priority,
		Deadline: deadline, StartBy: startBy, CorrelationID: req.CorrelationID, Handoff: req.Handoff,
		CallChain: chain, Stream: req.Stream, CreatedAt: now, AllowNestedCalls: req.AllowNestedCalls, ContextHistory: contextHistory,
		CallerContext: callerCtx, AllowedTools: req.AllowedTools, MaxContextTokens: req.MaxContextTokens,
	}
	if err := tr.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	key, err := memory.ResultKey(tr.SessionID, tr.Target, tr.TaskID)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	rec := &Record{TaskID: tr.TaskID, Caller: c.opts.Name, Target: tr.Target, Skill: tr.Skill, SessionID: tr.SessionID,
		ContextID: tr.ContextID, MemoryKey: key, Deadline: tr.Deadline, StartBy: tr.StartBy, CreatedAt: now, Chain: tr.CallChain, freshSession: fresh,
		Message: tr.Message, ContextHistory: tr.ContextHistory, Priority: tr.Priority, CorrelationID: tr.CorrelationID,
		Handoff: tr.Handoff, AllowNestedCalls: tr.AllowNestedCalls, Stream: tr.Stream,
		CallerContext: tr.CallerContext, AllowedTools: tr.AllowedTools, MaxContextTokens: tr.MaxContextTokens, also: req.RecordAlso}
	if !rec.StartBy.IsZero() {
		rec.SweepFrom = rec.StartBy.Add(c.opts.TakeGrace)
	}
	return tr, rec, nil
}

func (c *Caller) isClosed() bool { return c.life.Closed() }

// Cancel cancels a task this caller invoked. It first records the cancel in
// the target's cancel index (memory.CancelIndex, until the task's deadline
// plus a margin), so an instance of the target that starts later — one given
// working memory (agent.Options.Memory) — answers CANCELED when it dequeues
// the task; then it asks every running instance to cancel it. The task
// still ends with the agent's CANCELED error (or its result, if it finished
// first). With no instance running, Cancel succeeds once the cancel is
// recorded: the task is skipped when an instance starts. Unrecorded
// (working memory failed) that case is bus.ErrUnroutable.
//
// A task that waits for input (its agent asked a question) runs nowhere:
// the caller ends it CANCELED itself — stored, notified, its waiters woken
// — unless an answer started its next turn first, which is then canceled
// as a running task.
func (c *Caller) Cancel(ctx context.Context, taskID string) error {
	rec, err := c.loadRecord(ctx, taskID)
	if err != nil {
		return fmt.Errorf("caller %q: cancel %s: %w", c.opts.Name, taskID, err)
	}
	if rec == nil {
		return fmt.Errorf("caller %q: cancel %s: %w", c.opts.Name, taskID, ErrUnknownTask)
	}
	if w, err := c.loadWait(ctx, rec); err != nil {
		return fmt.Errorf("caller %q: cancel %s: %w", c.opts.Name, taskID, err)
	} else if w != nil {
		out, err := c.endWait(ctx, rec, w, startCanceled) // question.go
		if err != nil {
			return fmt.Errorf("caller %q: cancel %s: %w", c.opts.Name, taskID, err)
		}
		if out != nil {
			return nil // it waited: canceled here, no agent runs it
		}
	}
	markErr := c.markCanceled(ctx, rec)
	sendErr := c.sendCancel(ctx, rec, "canceled by the caller")
	switch {
	case sendErr == nil:
		if markErr != nil {
			c.log.Warn("cancel sent to the running instances but not recorded for later ones", zap.String("task", taskID), zap.Error(markErr))
		}
		return nil
	case markErr == nil && errors.Is(sendErr, bus.ErrUnroutable):
		c.log.Debug("no instance running: the cancel waits in working memory", zap.String("task", taskID), zap.String("target", rec.Target))
		return nil
	}
	return errors.Join(sendErr, markErr)
}

// cancelMarkerMargin keeps a recorded cancel past the task's deadline, for
// clock skew: until then the agent could still dequeue and start the task.
const cancelMarkerMargin = time.Minute

// markCanceled records the cancel of rec's task in its agent's cancel index
// (memory.CancelIndex), with the caller's name (only the task's own caller
// may cancel it) and until the task's deadline and the margin. A task past
// them needs none: no agent starts it any more.
func (c *Caller) markCanceled(ctx context.Context, rec *Record) error {
	until := rec.Deadline.Add(cancelMarkerMargin)
	if !until.After(c.opts.Now()) {
		return nil
	}
	index, err := memory.CancelIndex(rec.Target)
	var member string
	if err == nil {
		member, err = memory.CancelMember(rec.TaskID, c.opts.Name)
	}
	if err == nil {
		err = c.opts.Memory.IndexAdd(ctx, index, member, until.UnixMilli())
	}
	if err != nil {
		return fmt.Errorf("caller %q: record the cancel of %s: %w", c.opts.Name, rec.TaskID, err)
	}
	return nil
}

func (c *Caller) sendCancel(ctx context.Context, rec *Record, reason string) error {
	key, err := a2a.CancelRoutingKey(rec.Target)
	if err != nil {
		return err
	}
	env, err := c.opts.Codec.Encode(&a2a.TaskCancel{TaskID: rec.TaskID, Caller: c.opts.Name, Target: rec.Target, Reason: reason, Time: c.opts.Now()}, a2a.Trace{})
	if err != nil {
		return err
	}
	if err := c.opts.Bus.Publish(ctx, bus.Message{Envelope: env, RoutingKey: key}); err != nil {
		return fmt.Errorf("caller %q: send cancel of %s to %q: %w", c.opts.Name, rec.TaskID, key, err)
	}
	return nil
}
