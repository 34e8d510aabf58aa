// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// Run watches the conversation and, holding the session's lease, runs the
// model for every input not handled yet, until ctx is done or Close is
// called. It fails only when the conversation cannot be read.
func (s *Session) Run(ctx context.Context) error {
	ctx, stop, finish, err := s.life.Start(ctx, nil)
	if err != nil {
		return err
	}
	defer finish()
	defer func() { _ = s.set.Close() }() // stops following the sub-tasks' status updates

	n, err := readInt(ctx, s.opts.Memory, s.keys.Handled)
	if err != nil {
		return fmt.Errorf("chat: read the cursor of %q: %w", s.opts.SessionID, err)
	}
	s.state.handle(n)
	turns, err := s.opts.Memory.SubscribeTurns(ctx, s.opts.SessionID, 0)
	if err != nil {
		return fmt.Errorf("chat: subscribe to the conversation %q: %w", s.opts.SessionID, err)
	}
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	var (
		running   bool
		held      bool // the lease, taken by claim and not yet given up
		results   = make(chan error, 1)
		notBefore time.Time
	)
	// releaseIfDone gives the lease up once no input waits: when the run
	// ends, or when its answer comes back from the subscription after that.
	releaseIfDone := func() {
		if !held || running || s.state.pending() != 0 {
			return
		}
		held = false
		if err := s.lease.Release(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("chat: release the run lease", zap.Error(err))
		}
	}
	defer func() {
		stop() // a run still going gives up: the next holder of the lease answers its inputs
		if running {
			<-results
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = s.lease.Release(rctx)
	}()
	for {
		if !running && time.Now().After(notBefore) {
			if last, ok := s.claim(ctx); ok {
				running, held = true, true
				go func() { results <- s.run(ctx, last) }()
			}
		}
		select {
		case t, ok := <-turns:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("chat: the subscription to %q ended: %w", s.opts.SessionID, ErrClosed)
			}
			s.state.add(t)
			s.emit(Event{Kind: EventTurn, Turn: t})
			releaseIfDone()
		case err := <-results:
			running = false
			if err != nil && ctx.Err() == nil {
				// The run could not even record its failure: retry later, not in a hot loop.
				notBefore = time.Now().Add(s.opts.PollInterval)
			}
			releaseIfDone()
		case <-tick.C:
		case <-ctx.Done():
			return nil
		}
	}
}

// claim takes the lease when an input is waiting, checks the cursor in
// memory under it, and returns the seq of the newest turn the run answers.
func (s *Session) claim(ctx context.Context) (int64, bool) {
	if s.state.pending() == 0 {
		return 0, false
	}
	_, _, last := s.state.snapshot()
	if last < s.mustSee.Load() {
		return 0, false // this process's last step is not back from the subscription yet
	}
	ok, err := s.lease.Acquire(ctx)
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			s.log.Warn("chat: take the run lease", zap.Error(err))
		}
		return 0, false
	}
	n, err := readInt(ctx, s.opts.Memory, s.keys.Handled)
	if err != nil {
		s.log.Warn("chat: read the cursor", zap.Error(err))
		return 0, false
	}
	s.state.handle(n)
	if s.state.pending() == 0 {
		_ = s.lease.Release(ctx)
		return 0, false
	}
	return last, true
}

// run runs the model once for the inputs up to seq last, holding the
// lease (renewed meanwhile), and stores every finished step; a failure is
// stored as a KindError turn. It returns an error only when that record
// could not be stored either.
func (s *Session) run(runCtx context.Context, last int64) error {
	ctx, cancel := context.WithCancelCause(runCtx)
	defer cancel(nil)
	var renewing sync.WaitGroup
	renewing.Go(func() { s.renew(ctx, cancel) })
	defer func() {
		// The renewal ends before the run does: one in flight after the
		// lease's release would take it again, for a TTL.
		cancel(nil)
		renewing.Wait()
	}()
	s.emit(Event{Kind: EventRun, Seq: last})
	defer s.emit(Event{Kind: EventRunEnd, Seq: last})

	turns, started, _ := s.state.snapshot()
	i := len(turns)
	for i > 0 && turns[i-1].Seq > last {
		i--
	}
	spent, err := readInt(ctx, s.opts.Memory, s.keys.Tokens)
	if err != nil {
		return s.fail(ctx, last, 0, fmt.Errorf("chat: read the tokens spent by %q: %w", s.opts.SessionID, err))
	}
	m := &meter{Client: s.opts.Model}
	d := &dispatcher{bounded: tools.BoundArguments(s.set.Run, s.opts.MaxToolArgumentBytes), results: map[string]callResult{},
		announce: func(c llm.ToolCall) { s.emit(Event{Kind: EventToolCall, Seq: last, Call: c}) }}
	runID := uuid.NewString()[:8]
	step := 0
	budget := int64(s.opts.Chat.TokenBudget)
	loop := llm.Loop{
		Client: m, Tools: s.set.LLMTools(), Dispatch: d.run, MaxRounds: s.opts.Chat.MaxToolRounds,
		OnStep: func(ctx context.Context, msgs []llm.Message) error {
			step++
			return s.storeStep(ctx, last, runID, step, msgs, d, spent+m.total)
		},
		BeforeRequest: func(llm.Usage) error {
			if budget > 0 && spent+m.total >= budget {
				return fmt.Errorf("%w: session %q has spent %d tokens of its budget of %d (chat.token_budget)", ErrBudgetExhausted, s.opts.SessionID, spent+m.total, budget)
			}
			return nil
		},
	}
	history := History(s.opts.Chat.SystemPrompt, turns[:i], started, s.opts.Chat.MaxHistoryTurns, s.opts.Chat.MaxHistoryChars)
	history = withQuestions(history, s.state.questions())
	_, err = loop.Run(ctx, history)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errSuperseded), errors.Is(context.Cause(ctx), errSuperseded):
		s.log.Info("chat: another process answered these turns", zap.Int64("handled_to", last))
		return nil
	case runCtx.Err() != nil:
		return nil // closing: the next holder of the lease answers them
	}
	return s.fail(ctx, last, spent+m.total, err)
}

// maxQuestionsListed bounds the waiting questions a run's history lists.
const maxQuestionsListed = 5

// withQuestions adds to history, after its leading system messages, one
// that lists the questions of sub-tasks that wait for the user's answer
// (Session.Questions): however far back their notifications are (or
// summarised away), the model knows the user's next message may answer
// one, and how to pass it on. The newest maxQuestionsListed are listed.
func withQuestions(history []llm.Message, questions []memory.Turn) []llm.Message {
	if len(questions) == 0 {
		return history
	}
	var b strings.Builder
	b.WriteString("Questions of agents that wait for an answer: you handed them to the user. If the user's message answers one, " +
		"pass it on with invoke_agent (that task_id, and the answer as message or option); if the user no longer wants it, call cancel_task.")
	for _, q := range questions[max(0, len(questions)-maxQuestionsListed):] {
		b.WriteString("\n- " + clip(q.Content, 600))
	}
	i := 0
	for i < len(history) && history[i].Role == llm.RoleSystem {
		i++
	}
	return slices.Insert(slices.Clone(history), i, llm.Message{Role: llm.RoleSystem, Content: b.String()})
}

// renew keeps the lease while the run lasts; a lost lease stops the run.
func (s *Session) renew(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(s.opts.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if ctx.Err() != nil { // the run ended as the tick came: no renewal after it
				return
			}
			ok, err := s.lease.Renew(ctx)
			if err == nil && !ok {
				cancel(errSuperseded)
				return
			}
		}
	}
}

// callResult is what the dispatcher noted of one tool call.
type callResult struct {
	failed bool
	task   string // the sub-task invoke_agent started, or whose question it answered
	turn   int    // the turn its answer started (0: it started the task)
}

// dispatcher runs the tool calls of one run and notes their outcomes for the stored turns.
type dispatcher struct {
	bounded  llm.Dispatch          // the tool set's Run, its arguments bounded
	results  map[string]callResult // by call id; the loop runs calls one at a time
	announce func(llm.ToolCall)    // EventToolCall, before the call runs
}

func (d *dispatcher) run(ctx context.Context, call llm.ToolCall) (string, bool) {
	d.announce(call)
	out, failed := d.bounded(ctx, call)
	r := callResult{failed: failed}
	if !failed && call.Name == "invoke_agent" {
		var inv tools.InvokeResult
		if json.Unmarshal([]byte(out), &inv) == nil {
			r.task, r.turn = inv.TaskID, inv.Turn
		}
	}
	d.results[call.ID] = r
	return out, failed
}

// storeStep stores one finished step in one batch: the final answer with
// the cursor, or an assistant turn with tool calls and all its results;
// the tokens spent go with either.
func (s *Session) storeStep(ctx context.Context, last int64, runID string, step int, msgs []llm.Message, d *dispatcher, spent int64) error {
	sess := s.opts.SessionID
	var ops []memory.Op
	final := len(msgs) == 1 && len(msgs[0].ToolCalls) == 0
	if final {
		once, err := memory.ChatAnswerOnceID(last)
		if err != nil {
			return fmt.Errorf("chat: store the answer to the turns up to %d of %q: %w", last, sess, err)
		}
		t := memory.Turn{Role: memory.RoleAssistant, Content: msgs[0].Content, Meta: map[string]string{
			MetaKind: KindAnswer, MetaHandledTo: strconv.FormatInt(last, 10)}}
		ops = append(ops, memory.AppendTurnOnceOp(sess, once, t), memory.SetOp(s.keys.Handled, intValue(last), s.opts.StateTTL))
	} else {
		calls := msgs[0].ToolCalls
		names := map[string]string{}
		for _, c := range calls {
			names[c.ID] = c.Name
		}
		raw, err := json.Marshal(calls)
		if err != nil {
			return fmt.Errorf("chat: encode the tool calls: %w", err)
		}
		once, err := memory.ChatStepOnceID(last, runID, step, 0)
		if err != nil {
			return fmt.Errorf("chat: store a step of the turns up to %d of %q: %w", last, sess, err)
		}
		ops = append(ops, memory.AppendTurnOnceOp(sess, once, memory.Turn{Role: memory.RoleAssistant, Content: msgs[0].Content,
			Meta: map[string]string{MetaKind: KindToolCalls, MetaToolCalls: string(raw)}}))
		for i, m := range msgs[1:] {
			meta := map[string]string{MetaKind: KindToolResult, MetaToolCallID: m.ToolCallID, MetaTool: names[m.ToolCallID]}
			if r := d.results[m.ToolCallID]; r.failed {
				meta[MetaToolError] = "true"
			} else if r.task != "" && r.turn > 0 {
				meta[MetaAnsweredTask], meta[MetaAnsweredTurn] = r.task, strconv.Itoa(r.turn)
			} else if r.task != "" {
				meta[MetaStartedTask] = r.task
			}
			if once, err = memory.ChatStepOnceID(last, runID, step, i+1); err != nil {
				return fmt.Errorf("chat: store a step of the turns up to %d of %q: %w", last, sess, err)
			}
			ops = append(ops, memory.AppendTurnOnceOp(sess, once, memory.Turn{Role: memory.RoleTool, Content: m.Content, Meta: meta}))
		}
	}
	ops = append(ops, memory.SetOp(s.keys.Tokens, intValue(spent), s.opts.StateTTL))
	res, err := s.batch(ctx, ops)
	if err != nil {
		return fmt.Errorf("chat: store a step of the turns up to %d of %q: %w", last, sess, err)
	}
	if final && !res[0].Applied {
		return errSuperseded
	}
	for _, r := range res {
		if r.Turn.Seq > s.mustSee.Load() {
			s.mustSee.Store(r.Turn.Seq)
		}
	}
	return nil
}

// fail records a failed run as a KindError turn that handles its inputs.
func (s *Session) fail(ctx context.Context, last, spent int64, cause error) error {
	code := "model"
	switch {
	case errors.Is(cause, ErrBudgetExhausted):
		code = "budget"
	case errors.Is(cause, llm.ErrMaxToolRounds):
		code = "tool_rounds"
	case errors.Is(cause, memory.ErrUnavailable), errors.Is(cause, memory.ErrClosed):
		code = "memory"
	}
	msg := redact.String(cause.Error())
	// Info, not a warning: the failure is a turn of the conversation, which
	// its front end shows (the chat, the Primary's answer); logged once more
	// at warn, a person at a terminal would read it twice.
	s.log.Info("chat: the model could not answer", zap.Int64("handled_to", last), zap.String("code", code), zap.Error(cause))
	t := memory.Turn{Role: memory.RoleAssistant, Content: "I could not answer: " + msg, Meta: map[string]string{
		MetaKind: KindError, MetaHandledTo: strconv.FormatInt(last, 10), MetaError: msg, MetaErrorCode: code}}
	once, err := memory.ChatAnswerOnceID(last)
	if err != nil {
		return fmt.Errorf("chat: record the failure of the turns up to %d of %q: %w", last, s.opts.SessionID, err)
	}
	ops := []memory.Op{memory.AppendTurnOnceOp(s.opts.SessionID, once, t), memory.SetOp(s.keys.Handled, intValue(last), s.opts.StateTTL)}
	if spent > 0 {
		ops = append(ops, memory.SetOp(s.keys.Tokens, intValue(spent), s.opts.StateTTL))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	res, err := s.batch(ctx, ops)
	if err != nil {
		s.log.Error("chat: record a failed turn", zap.Error(err))
		return fmt.Errorf("chat: record the failure of the turns up to %d of %q: %w", last, s.opts.SessionID, err)
	}
	if res[0].Turn.Seq > s.mustSee.Load() {
		s.mustSee.Store(res[0].Turn.Seq)
	}
	return nil
}

// batch runs ops, again while working memory fails (memory.Retry within
// Options.MemoryRetryBound; every op is idempotent).
func (s *Session) batch(ctx context.Context, ops []memory.Op) (res []memory.OpResult, err error) {
	err = memory.Retry(ctx, s.opts.MemoryRetryBound, func(ctx context.Context) (err error) {
		res, err = s.opts.Memory.Batch(ctx, ops...)
		return err
	}, func(f memory.Failure) {
		if f.First() {
			s.log.Warn("chat: working memory failed; retrying", zap.Duration("bound", s.opts.MemoryRetryBound), zap.Error(f.Err))
		}
	})
	return res, err
}
