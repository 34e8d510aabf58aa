// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// Reply is the caller's answer to a question an agent asked (a task that
// waits for input: Outcome.WaitingForInput).
type Reply struct {
	// TaskID is the task that waits. Required.
	TaskID string
	// Text is the answer; Input an optional structured answer (a JSON
	// value, checked against the question's InputSchema when it has one).
	// At least one is required.
	Text  string
	Input json.RawMessage
	// Option, when set, picks one of the question's options by its id
	// (case-insensitive): the answer's text is then that id, as the
	// agent offered it. Text, when given too, must be the option's id or
	// label. An option the question does not offer is INVALID_INPUT
	// naming those it does.
	Option string
	// MessageID identifies the answer: the same answer sent again (a
	// retried CLI call, a redelivered tool call) with the same id is
	// applied once and returns the same Invocation. Empty makes a new one.
	// It follows the rule of a task id.
	MessageID string
	// Timeout is the time the agent gets for the turn the answer starts;
	// 0 means the caller's default, clamped to its maximum. Waiting for
	// input was not running: the turn gets a deadline of its own.
	Timeout time.Duration
	// Stream asks the agent for status updates of the turn (as
	// Request.Stream); a task invoked streamed streams every turn, and
	// Continue sets it when it has a StatusFunc.
	Stream bool
}

// Continue answers a task that waits for input (Reply) and waits for the
// end of the turn the answer starts — the task's outcome, or its next
// question — as Call does for Invoke: it listens before the answer is
// published, so nothing slips by. onStatus (may be nil) sees the turn's
// status updates. An answer whose publish had an unknown outcome is waited
// for all the same.
func (c *Caller) Continue(ctx context.Context, r Reply, onStatus StatusFunc) (*Outcome, error) {
	r.Stream = r.Stream || onStatus != nil
	events := c.waiters.add(r.TaskID)
	defer c.waiters.remove(r.TaskID, events)
	inv, err := c.Reply(ctx, r)
	if errors.Is(err, ErrOutcomeUnknown) {
		c.log.Warn("answer publish not confirmed; waiting for its turn", zap.String("task", r.TaskID), zap.Error(err))
	} else if err != nil {
		return nil, err
	}
	return c.wait(ctx, inv.TaskID, inv.Deadline, events, onStatus)
}

// ReplyWatched is Reply with the task watched from before the answer is
// published, as InvokeWatched is Invoke: the Watch's Wait sees the status
// updates of the turn the answer starts (it asks for them: Reply.Stream is
// set) and its end. There is no Watch when Reply fails, except with
// ErrOutcomeUnknown, returned with the Invocation and a Watch.
func (c *Caller) ReplyWatched(ctx context.Context, r Reply) (Invocation, *Watch, error) {
	r.Stream = true
	w := &Watch{c: c, taskID: r.TaskID, events: c.waiters.add(r.TaskID)}
	inv, err := c.Reply(ctx, r)
	if err != nil && !errors.Is(err, ErrOutcomeUnknown) {
		w.Close()
		return Invocation{}, nil, err
	}
	w.inv = inv
	return inv, w, err
}

// maxReplyRounds bounds the rounds of Reply that find what this process
// knew of the task out of date.
const maxReplyRounds = 3

// Reply answers a task of this caller that waits for input: the agent's
// handler runs again (on any replica of it) with the answer, the task's
// turn number and its history. It returns the Invocation of the new turn;
// wait for its end with Wait (which returns at the next question too).
//
// Only the task's own caller may answer it: another caller's task that
// waits is FORBIDDEN. A task that ended is TASK_FINISHED, one that does not
// wait for an answer (its turn runs, or its question was answered by
// another answer) INVALID_STATE, an answer its question's input schema
// refuses INVALID_INPUT: each an *a2a.Error naming the task. A task this
// caller has no record of is ErrUnknownTask. The same answer again (the
// same MessageID) is applied once and returns the same Invocation. A
// publish whose outcome is unknown is ErrOutcomeUnknown with the
// Invocation, as for Invoke; a publish that surely failed leaves the task
// waiting.
func (c *Caller) Reply(ctx context.Context, r Reply) (Invocation, error) {
	if c.isClosed() {
		return Invocation{}, ErrClosed
	}
	if err := c.checkReply(&r); err != nil {
		return Invocation{}, err
	}
	rec, err := c.loadRecord(ctx, r.TaskID)
	if err != nil {
		return Invocation{}, fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, r.TaskID, err)
	}
	if rec == nil {
		return Invocation{}, c.notMine(ctx, r.TaskID)
	}
	fresh := false // read from working memory this round, not from what this process knew
	for range maxReplyRounds {
		w, cached := c.local.wait(rec.TaskID) // the question this process stored: most likely still unanswered
		if fresh = fresh || !cached; fresh {
			if w, err = c.loadWait(ctx, rec); err != nil {
				return Invocation{}, fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, r.TaskID, err)
			}
		}
		if w == nil {
			return Invocation{}, c.notWaiting(ctx, rec, "its agent asked no question")
		}
		var start *turnStart
		if fresh { // answered already? (then nothing is written)
			if start, err = c.loadStart(ctx, rec, w.Turn+1); err != nil {
				return Invocation{}, fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, r.TaskID, err)
			}
		}
		var inv Invocation
		if start == nil {
			inv, start, err = c.answer(ctx, rec, w, r)
			if err != nil || start == nil {
				return inv, err
			}
		}
		switch {
		case start.By == startReply && start.MessageID == r.MessageID: // this answer, sent again
			return rec.turnInvocation(w.Turn+1, start.Deadline), nil
		case start.By != startReply:
			return Invocation{}, c.finished(rec, fmt.Sprintf("it ended while it waited for the answer (%s)", start.By))
		case fresh: // another answer started the turn, and the task waits on no later question
			return Invocation{}, c.notWaiting(ctx, rec, fmt.Sprintf("its question of turn %d was answered already (message %s)", w.Turn, start.MessageID))
		}
		fresh = true // what this process knew was out of date: read it again
	}
	return Invocation{}, c.notWaiting(ctx, rec, "it moved on while it was answered")
}

// checkReply validates r and fills its defaults (a message id, the timeout).
func (c *Caller) checkReply(r *Reply) error {
	if err := a2a.ValidateTaskID(r.TaskID); err != nil {
		return fmt.Errorf("%w: taskId: %w", ErrInvalidRequest, err)
	}
	if r.Text == "" && len(r.Input) == 0 && r.Option == "" {
		return fmt.Errorf("%w: text: an answer needs a text, an option or structured input", ErrInvalidRequest)
	}
	if r.Option != "" {
		if err := a2a.ValidateSkillID(r.Option); err != nil { // the rule of an option id
			return fmt.Errorf("%w: option: %w", ErrInvalidRequest, err)
		}
	}
	if len(r.Input) > 0 && !json.Valid(r.Input) {
		return fmt.Errorf("%w: input: not valid JSON", ErrInvalidRequest)
	}
	if r.MessageID == "" {
		r.MessageID = a2a.NewID()
	} else if err := a2a.ValidateTaskID(r.MessageID); err != nil {
		return fmt.Errorf("%w: messageId (the rule of a task id): %w", ErrInvalidRequest, err)
	}
	switch {
	case r.Timeout < 0:
		return fmt.Errorf("%w: timeout %s is negative", ErrInvalidRequest, r.Timeout)
	case r.Timeout == 0:
		r.Timeout = c.opts.DefaultTimeout
	case r.Timeout > c.opts.MaxTimeout:
		r.Timeout = c.opts.MaxTimeout
	}
	return nil
}

// answer starts the turn after the question w of rec's task with r: it
// claims the turn's start (memory.TaskTurnKey, set once) in the batch that
// moves the task in the pending index to the turn's deadline, and then
// publishes the request. It returns the Invocation, or — the start being
// taken — how the turn started instead (nil Invocation).
func (c *Caller) answer(ctx context.Context, rec *Record, w *waitState, r Reply) (Invocation, *turnStart, error) {
	n := w.Turn + 1
	var err error
	if r.Text, err = c.pickOption(rec, w, r); err == nil {
		err = c.checkAnswer(rec, w, r)
	}
	if err != nil {
		if taken, _ := c.loadStart(ctx, rec, n); taken != nil {
			return Invocation{}, taken, nil // answered already: that is the refusal to give
		}
		return Invocation{}, nil, err
	}
	now := c.opts.Now()
	text := r.Text
	if text == "" {
		text = string(r.Input)
	}
	msg := a2a.NewTextMessage(a2a.MessageRoleUser, text)
	msg.ID = r.MessageID
	// A task with a wait bound waits as long for each later turn (its agent
	// may have to start again, a KEDA job), then runs for the turn's timeout.
	var startBy time.Time
	wait := rec.StartBy.Sub(rec.CreatedAt)
	if !rec.StartBy.IsZero() && wait > 0 {
		startBy = now.Add(wait).UTC().Round(0)
	}
	tr := &a2a.TaskRequest{TaskID: rec.TaskID, ContextID: rec.ContextID, SessionID: rec.SessionID, Caller: c.opts.Name,
		Target: rec.Target, Skill: rec.Skill, Message: msg, Input: r.Input, Priority: rec.Priority, StartBy: startBy,
		Deadline:      now.Add(max(wait, 0) + r.Timeout).UTC().Round(0), // as working memory gives it back: the same answer again returns the same Invocation
		CorrelationID: rec.CorrelationID, Handoff: rec.Handoff, CallChain: rec.Chain, AllowNestedCalls: rec.AllowNestedCalls,
		Stream: rec.Stream || r.Stream, CreatedAt: now, Turn: n, History: w.History, ContextHistory: rec.ContextHistory,
		CallerContext: rec.CallerContext, AllowedTools: rec.AllowedTools, MaxContextTokens: rec.MaxContextTokens}
	if err := tr.Validate(); err != nil {
		return Invocation{}, nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	start := &turnStart{By: startReply, MessageID: r.MessageID, Deadline: tr.Deadline, History: w.History, Message: msg, At: now}
	ops, err := c.startOps(ctx, rec, start, n, w.AnswerBy)
	if err != nil {
		return Invocation{}, nil, err
	}
	taskSpec, err := bus.TaskQueue(rec.Target)
	if err != nil {
		return Invocation{}, nil, err
	}
	if err := c.declare(ctx, taskSpec); err != nil { // the agent may have scaled to zero and its queue gone
		return Invocation{}, nil, err
	}
	env, spilled, err := c.encodeRequest(tr, a2a.Trace{})
	if err != nil {
		return Invocation{}, nil, fmt.Errorf("caller %q: encode the answer to task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	ops = append(ops, spilled...) // after the claim: ops[0] tells whether it was taken
	if err := c.admit(tr); err != nil {
		return Invocation{}, nil, err
	}
	res, err := c.opts.Memory.Batch(ctx, ops...)
	if err != nil || !res[0].Applied {
		c.guardAbandon(rec.TaskID)
		if err != nil {
			return Invocation{}, nil, fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, err)
		}
		taken, err := c.loadStart(ctx, rec, n)
		if err == nil && taken == nil {
			err = fmt.Errorf("the start of turn %d was taken and is gone", n)
		}
		if err != nil {
			return Invocation{}, nil, fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, err)
		}
		return Invocation{}, taken, nil
	}
	c.local.putStart(rec.TaskID, n, start)
	inv := rec.turnInvocation(n, tr.Deadline)
	err = ctx.Err() // ended before the publish: surely not sent
	if err == nil {
		err = c.opts.Bus.Publish(ctx, bus.Message{Envelope: env, RoutingKey: taskSpec.Name})
	}
	if err != nil {
		if errors.Is(err, bus.ErrNotConfirmed) && !errors.Is(err, bus.ErrUnroutable) && !errors.Is(err, bus.ErrNotSent) {
			return inv, nil, fmt.Errorf("caller %q: publish the answer to task %s: %w: the turn is kept; wait for it (a2abus wait %s): %w",
				c.opts.Name, rec.TaskID, ErrOutcomeUnknown, rec.TaskID, err)
		}
		c.guardAbandon(rec.TaskID)
		c.unstart(ctx, rec, w, n)
		return Invocation{}, nil, fmt.Errorf("caller %q: publish the answer to task %s to %q (it still waits for one): %w", c.opts.Name, rec.TaskID, taskSpec.Name, err)
	}
	c.log.Debug("task answered", zap.String("task", rec.TaskID), zap.String("target", rec.Target), zap.Int("turn", n))
	return inv, nil, nil
}

// pickOption is the text of answer r to the question w: r.Text, or the id
// of the option r.Option picks (INVALID_INPUT when the question offers no
// such option, or r.Text names another).
func (c *Caller) pickOption(rec *Record, w *waitState, r Reply) (string, error) {
	if r.Option == "" {
		return r.Text, nil
	}
	var opts []a2a.Option
	if w.Question != nil {
		opts = w.Question.Options
	}
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
		if !strings.EqualFold(o.ID, r.Option) {
			continue
		}
		if t := strings.TrimSpace(r.Text); t != "" && !strings.EqualFold(t, o.ID) && !strings.EqualFold(t, strings.TrimSpace(o.Label)) {
			return "", fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, a2a.NewError(a2a.CodeInvalidInput,
				"the answer picks option %q but its text %q is neither that option's id nor its label: give one of them, or leave the text out", o.ID, t))
		}
		return o.ID, nil
	}
	if len(opts) == 0 {
		return "", fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, a2a.NewError(a2a.CodeInvalidInput,
			"the question of %s offers no options (asked for option %q): answer with a text", rec.Target, r.Option))
	}
	return "", fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, a2a.NewError(a2a.CodeInvalidInput,
		"the question of %s offers no option %q; its options are: %s", rec.Target, r.Option, strings.Join(ids, ", ")))
}

// checkAnswer refuses an answer that the question's input schema refuses
// (INVALID_INPUT naming the path and the rule), as Invoke checks a skill's.
// It is the only check of the answer (the agent checks a skill's schema on
// the first turn only), so in a program that registered no JSON Schema
// validator an answer to a question with a schema is refused with an error
// wrapping schema.ErrNotLinked rather than sent unchecked.
func (c *Caller) checkAnswer(rec *Record, w *waitState, r Reply) error {
	if w.Question == nil || len(w.Question.InputSchema) == 0 {
		return nil
	}
	s, err := schema.Compile(w.Question.InputSchema)
	if errors.Is(err, schema.ErrNotLinked) {
		return fmt.Errorf("caller %q: answer task %s: the question of %s has an input schema: %w", c.opts.Name, rec.TaskID, rec.Target, err)
	}
	if err != nil { // the agent's own schema: it checks the answer itself, or not
		c.log.Warn("the question's input schema is not usable; the answer is not checked",
			zap.String("task", rec.TaskID), zap.String("target", rec.Target), zap.Error(err))
		return nil
	}
	err = s.Validate(schema.Input(r.Input, r.Text))
	if err == nil {
		return nil
	}
	e := a2a.NewError(a2a.CodeInvalidInput, "%v", err)
	errors.As(err, &e)
	return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID,
		a2a.NewError(a2a.CodeInvalidInput, "the answer to the question of %s: %s", rec.Target, e.Message))
}

// startOps are the writes that start turn n of rec's task with start: its
// claim (set once: first, its result tells whether it was taken), the
// task's place in the pending index at the turn's deadline, its record
// kept as long (when the turn ends after the wait would have: the question
// kept it until then), and the session's owner and the target's grant
// renewed.
// The writes after the claim are harmless when it was taken: another
// answer (or the same again) moves the task to about the same deadline,
// and a task whose wait ended is taken out of the index again by the
// sweeper.
func (c *Caller) startOps(ctx context.Context, rec *Record, start *turnStart, n int, answerBy time.Time) ([]memory.Op, error) {
	sessionOps, err := c.sessionOps(ctx, rec) // the session may have changed hands meanwhile
	if err != nil {
		return nil, err
	}
	key, err := memory.TaskTurnKey(c.opts.Name, rec.TaskID, n)
	if err != nil {
		return nil, err
	}
	recKey, err := memory.TaskRecordKey(c.opts.Name, rec.TaskID)
	if err != nil {
		return nil, err
	}
	b, err := start.encode()
	if err != nil {
		return nil, fmt.Errorf("caller %q: encode the answer to task %s: %w", c.opts.Name, rec.TaskID, err)
	}
	ttl := start.Deadline.Sub(start.At) + c.opts.ResultTTL
	ops := []memory.Op{memory.SetIfAbsentOp(key, b, ttl), memory.IndexAddOp(c.pending, rec.TaskID, start.Deadline.UnixMilli())}
	if start.Deadline.After(answerBy) {
		recJSON, err := rec.encode()
		if err != nil {
			return nil, fmt.Errorf("caller %q: encode record of task %s: %w", c.opts.Name, rec.TaskID, err)
		}
		ops = append(ops, memory.SetOp(recKey, recJSON, ttl))
	}
	return append(ops, sessionOps...), nil
}

// unstart undoes the start of turn n of rec's task whose request was surely
// not sent: the task waits for an answer again (w), until its due time.
func (c *Caller) unstart(ctx context.Context, rec *Record, w *waitState, n int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	key, err := memory.TaskTurnKey(c.opts.Name, rec.TaskID, n)
	if err == nil {
		_, err = c.opts.Memory.Batch(ctx, memory.DeleteOp(key), memory.IndexAddOp(c.pending, rec.TaskID, w.AnswerBy.UnixMilli()))
	}
	if err != nil {
		c.log.Warn("an unsent answer's turn not undone: the task runs out its deadline", zap.String("task", rec.TaskID), zap.Error(err))
	}
	c.local.putWait(rec.TaskID, w)
}

// notMine is the refusal of an answer to a task this caller has no record
// of: FORBIDDEN when it is another caller's task that waits for input,
// ErrUnknownTask otherwise.
func (c *Caller) notMine(ctx context.Context, taskID string) error {
	key, err := memory.TaskOwnerKey(taskID)
	if err == nil {
		var owner []byte
		owner, err = c.opts.Memory.Get(ctx, key)
		if err == nil && !a2a.SameAgent(string(owner), c.opts.Name) {
			return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, taskID,
				a2a.NewError(a2a.CodeForbidden, "task %s is another caller's: only its caller may answer it", taskID))
		}
	}
	if err != nil && !errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, taskID, err)
	}
	return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, taskID, ErrUnknownTask)
}

// notWaiting is the refusal of an answer to rec's task, which waits for
// none (why): TASK_FINISHED when its final outcome is stored, else
// INVALID_STATE (a turn of it runs).
func (c *Caller) notWaiting(ctx context.Context, rec *Record, why string) error {
	var res StoredResult
	found, err := getJSON(ctx, c.opts.Memory, rec.MemoryKey, &res)
	switch {
	case err != nil:
		return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID, err)
	case found && a2a.EndsTurn(res.State) && !a2a.WaitsForInput(res.State):
		return c.finished(rec, fmt.Sprintf("it ended %s", res.State))
	}
	return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID,
		a2a.NewError(a2a.CodeInvalidState, "task %s of %s waits for no answer: %s; it runs (wait for its turn to end)", rec.TaskID, rec.Target, why))
}

// finished is the refusal of an answer to rec's task, which is over (why).
func (c *Caller) finished(rec *Record, why string) error {
	return fmt.Errorf("caller %q: answer task %s: %w", c.opts.Name, rec.TaskID,
		a2a.NewError(a2a.CodeTaskFinished, "task %s of %s is over: %s; invoke the agent again to start a new task", rec.TaskID, rec.Target, why))
}
