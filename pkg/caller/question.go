// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// finalizeQuestion ends the turn s.Turn of rec's task with the agent's
// question s (a result with state INPUT_REQUIRED or AUTH_REQUIRED), once:
// it claims the turn first (the first end of a turn wins: a question after
// the sweeper's TIMEOUT, or a second answer of the turn, changes nothing),
// then stores what the task waits for, the question at the memory key, its
// notification turn and its call-history entry (WAITING), and moves the
// task in the pending index to the end of the wait for the answer
// (Options.InputTimeout). The task is not over: its outcome says so
// (Outcome.WaitingForInput) and nothing runs until Reply answers it.
func (c *Caller) finalizeQuestion(ctx context.Context, rec *Record, s *StoredResult, by string) (*Outcome, error) {
	n := s.Turn
	var prior []*a2a.Message // the task's messages before the question
	if rec.Message != nil {
		prior = []*a2a.Message{rec.Message}
	}
	if n > 0 {
		start, err := c.startOf(ctx, rec, n)
		if err != nil {
			return nil, err
		}
		if start == nil || start.By != startReply {
			return c.ignore(s, by, "none: its turn never started")
		}
		prior = append(slices.Clone(start.History), start.Message)
	}
	claimKey, err := memory.TaskTurnClaimKey(c.opts.Name, s.TaskID, n)
	if err != nil {
		return nil, err
	}
	by = claimQuestion + strings.TrimPrefix(by, claimResult) // "question/<message id>"
	winner, err := c.claim(ctx, claimKey, by)
	if err != nil {
		return nil, err
	}
	if winner != by {
		return c.ignore(s, by, winner)
	}
	// This question again (delivered again, or published twice by an agent
	// whose first publish went unconfirmed) after it was answered: its wait
	// is over, and its writes are not redone.
	if next, err := c.startOf(ctx, rec, n+1); err != nil || next != nil {
		if next != nil {
			c.log.Info("question delivered again after its wait ended: nothing to redo", zap.String("task", s.TaskID),
				zap.Int("turn", n), zap.String("ended_by", next.By))
		}
		return nil, err
	}
	w := &waitState{Turn: n, State: s.State, Agent: s.Agent, Question: s.Question, AnswerBy: s.StoredAt.Add(c.opts.InputTimeout),
		History: boundHistory(append(prior, questionMessage(s)), c.opts.MaxTaskHistory, "task")}
	s.AnswerBy = w.AnswerBy
	ops, entry, err := c.questionOps(rec, s, w)
	if err != nil {
		return nil, err
	}
	if err := c.batch(ctx, "store and notify question", ops...); err != nil {
		return nil, err
	}
	c.local.putWait(s.TaskID, w)
	c.guardDone(s) // the turn is over and nothing runs: its in-flight slot is free
	c.log.Info("task waits for input", zap.String("task", s.TaskID), zap.String("session", s.SessionID),
		zap.String("target", s.Agent), zap.String("skill", s.Skill), zap.Int("turn", n), zap.String("state", string(s.State)),
		zap.Duration("duration", entry.Duration()), zap.Time("answer_by", w.AnswerBy))
	c.writeAudit(entry)
	return &Outcome{Invocation: rec.turnInvocation(n, w.AnswerBy), Result: s}, nil
}

// questionOps are the writes of a question s that won its turn's claim:
// what the task waits for (w), the question at the memory key, the
// notification turn, the call-history entry, the task's new place in the
// pending index (the end of the wait), the owner of the task (so that
// another caller's answer is refused by name), and the record kept as
// long (it outlives the deadline of turn 0 when the wait is longer).
func (c *Caller) questionOps(rec *Record, s *StoredResult, w *waitState) ([]memory.Op, *HistoryEntry, error) {
	ttl := w.AnswerBy.Sub(s.StoredAt) + c.opts.ResultTTL
	waitJSON, err := w.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode what task %s waits for: %w", s.TaskID, err)
	}
	result, err := s.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode the question of task %s: %w", s.TaskID, err)
	}
	recJSON, err := rec.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode record of task %s: %w", s.TaskID, err)
	}
	waitKey, err := memory.TaskWaitKey(c.opts.Name, s.TaskID)
	if err != nil {
		return nil, nil, err
	}
	recKey, err := memory.TaskRecordKey(c.opts.Name, s.TaskID)
	if err != nil {
		return nil, nil, err
	}
	ownerKey, err := memory.TaskOwnerKey(s.TaskID)
	if err != nil {
		return nil, nil, err
	}
	once, err := memory.NotifyTurnOnceID(s.TaskID, s.Turn, claimResult) // the turn's one end: a question or a final answer
	if err != nil {
		return nil, nil, err
	}
	entry := c.historyEntry(rec, s)
	ops := append(make([]memory.Op, 0, 8),
		memory.SetOp(waitKey, waitJSON, ttl),
		memory.SetOp(rec.MemoryKey, result, ttl),
		memory.AppendTurnOnceOp(rec.SessionID, once, questionTurn(s, rec.MemoryKey)),
		memory.IndexAddOp(c.pending, s.TaskID, w.AnswerBy.UnixMilli()),
		memory.SetOp(ownerKey, []byte(c.opts.Name), ttl),
		memory.SetOp(recKey, recJSON, ttl))
	return c.appendHistoryOps(ops, entry, true), entry, nil
}

// endWait ends the wait of rec's task for the answer to its question w,
// unless the answer came first: by the sweeper (startTimeout: nobody
// answered within Options.InputTimeout) or by a cancel (startCanceled). It
// claims the start of the next turn for by — the claim Reply takes for an
// answer — and when it wins stores and notifies the task's final outcome
// (TIMEOUT or CANCELED; no agent runs it) and wakes its waiters. It
// returns that outcome, or nil when the claim was taken (answered, or
// ended already).
func (c *Caller) endWait(ctx context.Context, rec *Record, w *waitState, by string) (*Outcome, error) {
	n := w.Turn + 1
	now := c.opts.Now()
	key, err := memory.TaskTurnKey(c.opts.Name, rec.TaskID, n)
	if err != nil {
		return nil, err
	}
	start := &turnStart{By: by, At: now}
	b, err := start.encode()
	if err != nil {
		return nil, err
	}
	var res []memory.OpResult
	err = c.retry(ctx, "end the wait for an answer", func(ctx context.Context) (err error) {
		res, err = c.opts.Memory.Batch(ctx, memory.SetIfAbsentOp(key, b, c.opts.ResultTTL+c.opts.MaxTimeout))
		return err
	})
	if err != nil || !res[0].Applied {
		return nil, err
	}
	var te *a2a.TaskError
	if by == startTimeout {
		te = &a2a.TaskError{State: a2a.TaskStateFailed, Code: a2a.CodeTimeout, Retryable: true,
			Message: fmt.Sprintf("%s asked a question (%s) and nobody answered it within %s", rec.Target, preview(questionText(w.Question)), c.opts.InputTimeout)}
	} else {
		te = &a2a.TaskError{State: a2a.TaskStateCanceled, Code: a2a.CodeCanceled,
			Message: fmt.Sprintf("canceled by %s while it waited for the answer to a question of %s", c.opts.Name, rec.Target)}
	}
	te.TaskID, te.Agent, te.Turn, te.Time = rec.TaskID, rec.Target, n, now
	s := &StoredResult{TaskID: rec.TaskID, Agent: rec.Target, Caller: rec.Caller, SessionID: rec.SessionID, Skill: rec.Skill,
		ContextID: rec.ContextID, State: te.State, Status: te.Status(), Error: te.AsError(), Turn: n, StoredAt: now, endedWait: by}
	entry, err := c.store(ctx, rec, s, by == startTimeout)
	if err != nil {
		return nil, err
	}
	out := c.finalized(rec, s, entry, w.AnswerBy)
	if by == startTimeout {
		c.observeSwept(rec)
	}
	var m *bus.Message // the outcome as an agent would have sent it, for the other replicas
	if env, err := c.opts.Codec.Encode(te, a2a.Trace{}); err == nil {
		m = &bus.Message{Envelope: env}
	}
	c.tell(ctx, rec.TaskID, event{outcome: out}, m)
	return out, nil
}

// questionText is the text of q ("" for none).
func questionText(q *a2a.Question) string {
	if q == nil {
		return ""
	}
	return q.Text
}

// answerDue formats when an answer is due, for notifications and errors.
func answerDue(t time.Time) string { return t.UTC().Format(time.RFC3339) }
