// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// handleResponse consumes agent.response.<Name>: status updates are passed
// to the replicas' waiters; results and errors are finalized (stored,
// notified, marked done) before the ack.
func (c *Caller) handleResponse(ctx context.Context, d *bus.Delivery) error {
	p, err := c.opts.Codec.Decode(d.Envelope)
	if err != nil {
		c.log.Warn("undecodable response dead-lettered", zap.String("message_id", d.MessageID), zap.Error(err))
		return d.DeadLetter()
	}
	if c.forgedAnswer(d, p) { // identity.go
		if _, status := p.(*a2a.TaskStatus); status {
			return d.Ack() // advisory: nothing to keep
		}
		return d.DeadLetter()
	}
	var stored *StoredResult
	switch r := p.(type) {
	case *a2a.TaskStatus:
		c.markTaken(ctx, r.TaskID) // an agent took it (queuewait.go)
		c.tell(ctx, r.TaskID, event{status: r}, &d.Message)
		return d.Ack()
	case *a2a.TaskResult:
		stored = &StoredResult{TaskID: r.TaskID, Agent: r.Agent, State: r.State, Status: r.Status, Message: r.Message,
			Artifacts: r.Artifacts, Confidence: r.Confidence, Warnings: r.Warnings, Metadata: r.Metadata,
			Question: r.Question, Turn: r.Turn, attempt: r.Attempt}
	case *a2a.TaskError:
		stored = &StoredResult{TaskID: r.TaskID, Agent: r.Agent, State: r.State, Status: r.Status(), Error: r.AsError(),
			Turn: r.Turn, attempt: r.Attempt}
	default:
		c.log.Warn("unexpected message on the response queue dead-lettered", zap.String("type", string(d.Kind)), zap.String("message_id", d.MessageID))
		return d.DeadLetter()
	}
	if !c.opts.KeepSecrets {
		redactResult(stored) // redact.go
	}
	// A context that survives the consumer's stop: a finalization that has
	// begun completes (memory retries end with Close, or past
	// MemoryRetryBound: the response is then requeued, well before the
	// broker's consumer_timeout would take it back). The bound travels
	// without a timer: retry puts it on its context once memory failed.
	fctx := &retryBound{Context: c.life.ClosingContext(), at: time.Now().Add(c.opts.MemoryRetryBound)}
	stored.once = d.Attempt <= 1 // delivered here the first time: nothing of it can have been stored before
	observed := c.observeFinalize(fctx, d)
	out, err := c.finalize(fctx, stored, answerClaim(d))
	observed(err)
	if err != nil {
		if ae := (*a2a.Error)(nil); errors.As(err, &ae) && ae.Code == a2a.CodeForbidden {
			c.log.Warn("forged response refused and dead-lettered", zap.String("task", stored.TaskID), zap.String("agent", stored.Agent),
				zap.String("code", string(ae.Code)), zap.String("error", ae.Message))
			return d.DeadLetter()
		}
		if errors.Is(err, ErrUnknownTask) {
			c.log.Warn("response for an unknown task dead-lettered", zap.String("task", stored.TaskID), zap.Error(err))
			return d.DeadLetter()
		}
		return err // requeued; finalize is idempotent
	}
	if out == nil {
		return d.Ack() // another outcome of the task was final: nothing changed, nobody to tell
	}
	c.tell(ctx, stored.TaskID, event{outcome: out}, &d.Message) // waiters in this process need no look-up
	return d.Ack()
}

// answerClaim is the claim of an agent's answer: claimResult and the
// answer's message id (a digest of its body when it has none), so that the
// same message redelivered finds the claim its own, and another answer —
// from a run of the task after the one answered — does not.
func answerClaim(d *bus.Delivery) string {
	id := d.MessageID
	if id == "" {
		sum := sha256.Sum256(d.Body)
		id = "sha256:" + hex.EncodeToString(sum[:])
	}
	return claimResult + "/" + id
}

// finalize stores the end of a task's turn — its final outcome, or a
// question (finalizeQuestion) — at its memory key, appends one
// notification turn to its session, records it in the call history and
// clears it from the pending set (or, for a question, moves it there to the
// end of the wait for the answer). Every step is idempotent, so a
// redelivered response changes nothing twice.
//
// The first end of a turn wins. by is who finalizes: claimTimeout for the
// sweeper, answerClaim for an agent's answer. Each claims the turn
// (memory.TaskTurnClaimKey; for turn 0 the task's claim key) unless it was
// claimed before, and only the claim's winner stores its outcome — the
// same answer redelivered wins again. A real result (not an error) that
// comes after the sweeper's TIMEOUT of its turn replaces it, marked late:
// the first such result, by a second claim (the late claim key). Any other
// answer (a second one from a turn run again after its reply, an error
// after the TIMEOUT, an answer of a turn that ended or never started)
// changes nothing: it is logged, and finalize returns nil — as it does for
// the sweeper when an answer won.
func (c *Caller) finalize(ctx context.Context, s *StoredResult, by string) (*Outcome, error) {
	var rec *Record
	err := c.retry(ctx, "load task record", func(ctx context.Context) (err error) {
		rec, err = c.loadRecord(ctx, s.TaskID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("task %s: %w", s.TaskID, ErrUnknownTask)
	}
	if !a2a.SameAgent(rec.Target, s.Agent) {
		return nil, forgedAnswer(rec, s.Agent) // sessions.go
	}
	s.Caller, s.SessionID, s.Skill, s.Agent, s.ContextID = rec.Caller, rec.SessionID, rec.Skill, rec.Target, rec.ContextID
	s.StoredAt = c.opts.Now()
	if a2a.WaitsForInput(s.State) {
		return c.finalizeQuestion(ctx, rec, s, by) // question.go
	}
	deadline, sweepFrom := rec.Deadline, rec.earliestClaim() // the sweeper claims turn 0 from sweepFrom (queuewait.go)
	if s.Turn > 0 {
		start, err := c.startOf(ctx, rec, s.Turn)
		if err != nil {
			return nil, err
		}
		if start == nil || start.By != startReply {
			return c.ignore(s, by, "none: its turn never started")
		}
		deadline, sweepFrom = start.Deadline, start.Deadline
	}
	claimKey, err := memory.TaskTurnClaimKey(c.opts.Name, s.TaskID, s.Turn)
	if err != nil {
		return nil, err
	}

	// The first answer of a first run of the turn, delivered here the first
	// time, well before its deadline, cannot have been preceded by another
	// end of the turn (the sweeper claims only past the deadline; a second
	// answer needs a second run, so an attempt past the first), so its claim
	// travels in the batch that stores it: one round trip. Its writes are
	// then the claim's (its turn-0 writes are once-only besides). Any other
	// answer, and the sweeper, decide the claim first, then write.
	var winner string
	if by != claimTimeout && s.attempt <= 1 && s.once && s.StoredAt.Before(sweepFrom.Add(-claimMargin)) {
		var entry *HistoryEntry
		winner, entry, err = c.storeEarly(ctx, rec, s, by, claimKey)
		if err != nil {
			return nil, err
		}
		if winner == by {
			return c.finalized(rec, s, entry, deadline), nil
		}
	} else if winner, err = c.claim(ctx, claimKey, by); err != nil {
		return nil, err
	}
	if winner != by {
		if by == claimTimeout || winner != claimTimeout || s.Error != nil {
			return c.ignore(s, by, winner)
		}
		// A real result after the sweeper's TIMEOUT: the first one replaces it.
		lateKey, err := memory.TaskTurnLateClaimKey(c.opts.Name, s.TaskID, s.Turn)
		if err != nil {
			return nil, err
		}
		late, err := c.claim(ctx, lateKey, by)
		if err != nil {
			return nil, err
		}
		if late != by {
			return c.ignore(s, by, claimResult+" (late)")
		}
		s.Late = true
	}
	entry, err := c.store(ctx, rec, s, by == claimTimeout)
	if err != nil {
		return nil, err
	}
	return c.finalized(rec, s, entry, deadline), nil
}

// startOf is loadStart retried while working memory fails.
func (c *Caller) startOf(ctx context.Context, rec *Record, n int) (*turnStart, error) {
	var start *turnStart
	err := c.retry(ctx, "load turn start", func(ctx context.Context) (err error) {
		start, err = c.loadStart(ctx, rec, n)
		return err
	})
	return start, err
}

// storeEarly claims the turn (key) for the answer by and stores, notifies
// and records s in the same batch, and returns the claim's winner — by, or
// whoever claimed the turn before — and s's history entry.
func (c *Caller) storeEarly(ctx context.Context, rec *Record, s *StoredResult, by, key string) (string, *HistoryEntry, error) {
	ops, entry, err := c.outcomeOps(rec, s, false, c.claimOp(key, by)) // the claim first: res[0]
	if err != nil {
		return "", nil, err
	}
	var res []memory.OpResult
	err = c.retry(ctx, "claim, store and notify result", func(ctx context.Context) (err error) {
		res, err = c.opts.Memory.Batch(ctx, ops...)
		return err
	})
	if err != nil || res[0].Applied {
		return by, entry, err
	}
	winner, err := c.claimOwner(ctx, key) // whose claim it is (this answer's, redelivered?)
	return winner, entry, err
}

// store writes the outcome s of the task that its finalizer won: one batch
// for an answer (retried by its redelivery, as it is acked only after this)
// that stores it, notifies it and takes it out of the pending index. A
// TIMEOUT is retried by the sweeper only while the task is in the index,
// so it leaves the index last, after the batch that stores it — never over
// a real answer that arrived (late) meanwhile — and notifies it.
// It returns s's history entry.
func (c *Caller) store(ctx context.Context, rec *Record, s *StoredResult, swept bool) (*HistoryEntry, error) {
	ops, entry, err := c.outcomeOps(rec, s, swept)
	if err != nil {
		return nil, err
	}
	if !swept {
		return entry, c.batch(ctx, "store and notify result", ops...)
	}
	if err := c.batch(ctx, "store and notify timeout", ops...); err != nil {
		return nil, err
	}
	return entry, c.batch(ctx, "clear pending", memory.IndexRemoveOp(c.pending, s.TaskID))
}

// outcomeOps are the writes of a final outcome: the result at its memory
// key, the notification turn, the call history's entry, the context's
// history with the task's request and answer, and for an answer the
// removal from the pending index. On turn 0 all but the context's are
// once-only (the first outcome wins), except that a late result replaces
// the sweeper's TIMEOUT. A later turn's outcome replaces the question its
// turn answered (the writes of its claim's winner only). The history
// entry is returned too, for the outcome's log line. The ops begin with
// lead, if any.
func (c *Caller) outcomeOps(rec *Record, s *StoredResult, swept bool, lead ...memory.Op) ([]memory.Op, *HistoryEntry, error) {
	result, err := s.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode result of task %s: %w", s.TaskID, err)
	}
	kind := claimResult
	if swept {
		kind = claimTimeout
	}
	set := memory.SetIfAbsentOp(rec.MemoryKey, result, c.opts.ResultTTL)
	if s.Late || s.Turn > 0 {
		set = memory.SetOp(rec.MemoryKey, result, c.opts.ResultTTL)
	}
	once, err := memory.NotifyTurnOnceID(s.TaskID, s.Turn, kind)
	if err != nil {
		return nil, nil, fmt.Errorf("notify the outcome of task %s: %w", s.TaskID, err)
	}
	notify := memory.AppendTurnOnceOp(rec.SessionID, once, notificationTurn(s, rec.MemoryKey, swept))
	entry := c.historyEntry(rec, s)
	// One slice for every op (an Op is 192 bytes): the lead, the result, the
	// notification, the history and its export, the pending index, the context.
	ops := append(append(make([]memory.Op, 0, len(lead)+7), lead...), set, notify)
	ops = c.appendHistoryOps(ops, entry, s.Late || s.Turn > 0)
	if !swept {
		ops = append(ops, memory.IndexRemoveOp(c.pending, s.TaskID))
	}
	if op, ok := c.contextOp(rec, s); ok { // contexts.go
		ops = append(ops, op)
	}
	return ops, entry, nil
}

// finalized ends a task whose outcome s this process stored: its local
// record and guard slot are freed, its outcome logged (entry), and returned.
// deadline is the deadline of the turn it ended.
func (c *Caller) finalized(rec *Record, s *StoredResult, entry *HistoryEntry, deadline time.Time) *Outcome {
	c.local.drop(s.TaskID)
	c.guardDone(s) // frees the guard's slot and tells the circuit (guard.go)
	c.logOutcome(entry)
	c.writeAudit(entry)
	c.observeFinished(entry)
	return &Outcome{Invocation: rec.turnInvocation(s.Turn, deadline), Result: s}
}

// ignore logs an outcome that lost to winner, the task's final outcome,
// and returns no outcome: nothing was stored or notified.
func (c *Caller) ignore(s *StoredResult, by, winner string) (*Outcome, error) {
	if by == claimTimeout {
		c.log.Debug("deadline passed but the task was answered: nothing to time out", zap.String("task", s.TaskID))
		return nil, nil
	}
	if w, _, ok := strings.Cut(winner, "/"); ok {
		winner = w
	}
	var code a2a.ErrorCode
	if s.Error != nil {
		code = s.Error.Code
	}
	c.log.Info("answer ignored: the task already has its final outcome", zap.String("task", s.TaskID),
		zap.String("agent", s.Agent), zap.String("answer", strings.TrimPrefix(by, claimResult+"/")), zap.Int("turn", s.Turn),
		zap.String("state", string(s.State)), zap.String("code", string(code)), zap.String("final", winner))
	return nil, nil
}

// batch runs ops in one working-memory round trip, retried while memory
// fails (every op is idempotent).
func (c *Caller) batch(ctx context.Context, what string, ops ...memory.Op) error {
	return c.retry(ctx, what, func(ctx context.Context) error {
		_, err := c.opts.Memory.Batch(ctx, ops...)
		return err
	})
}

// claim sets key to by unless it is set, and returns its value: by when it
// won (now or before), else who claimed it first.
func (c *Caller) claim(ctx context.Context, key, by string) (string, error) {
	var winner string
	err := c.retry(ctx, "claim task", func(ctx context.Context) error {
		for range 3 { // a claim that expired between the two calls is claimed again
			res, err := c.opts.Memory.Batch(ctx, c.claimOp(key, by))
			if err != nil {
				return err
			}
			if res[0].Applied {
				winner = by
				return nil
			}
			b, err := c.opts.Memory.Get(ctx, key)
			if !errors.Is(err, memory.ErrNotFound) {
				winner = string(b)
				return err
			}
		}
		return fmt.Errorf("claim %s: %w: it kept expiring as it was read", key, memory.ErrNotFound)
	})
	return winner, err
}

// claimOwner reads who holds the claim key (taken: its claim failed).
func (c *Caller) claimOwner(ctx context.Context, key string) (string, error) {
	var owner string
	err := c.retry(ctx, "read claim", func(ctx context.Context) error {
		b, err := c.opts.Memory.Get(ctx, key)
		owner = string(b)
		return err
	})
	return owner, err
}

// claimOp claims key (claimKey or lateClaimKey) for by, if nobody has.
func (c *Caller) claimOp(key, by string) memory.Op {
	return memory.SetIfAbsentOp(key, []byte(by), c.opts.ResultTTL+c.opts.MaxTimeout)
}

// claimMargin is how long before its deadline an answer is taken to be on
// time without asking who claimed the task: the deadline sweepers of the
// caller's replicas (whose clocks must agree within it) claim only past it.
const claimMargin = 5 * time.Second

// broadcast tells every other running replica of this caller (their
// waiters and guards) about a response this one handled. tell sends it
// only when no Call, Wait or Watch of this process waits for the task: the
// replica that waits is then elsewhere. (A second waiter in another replica
// at the same time finds the outcome by polling.) Best effort: waiters also
// poll working memory (see the package doc).
func (c *Caller) broadcast(ctx context.Context, m bus.Message) {
	key, err := a2a.EventRoutingKey(c.opts.Name)
	if err != nil {
		return
	}
	m.RoutingKey = key
	m.MessageID += ".event"
	m.Headers = maps.Clone(m.Headers)
	if m.Headers == nil {
		m.Headers = map[string]string{}
	}
	delete(m.Headers, bus.HeaderAttempt)
	m.Headers[headerOrigin] = c.opts.InstanceID
	if err := c.opts.Bus.Publish(ctx, m); err != nil {
		c.log.Debug("event not broadcast", zap.String("task", m.CorrelationID), zap.Error(err))
	}
}

// headerOrigin names the instance that broadcast an event; it ignores its own.
const headerOrigin = "x-a2a-origin"

// handleEvent passes another replica's response to the waiters of this
// process (this process's own were passed on directly).
func (c *Caller) handleEvent(_ context.Context, d *bus.Delivery) error {
	if d.Headers[headerOrigin] == c.opts.InstanceID || c.foreignEvent(d) { // identity.go
		return d.Ack()
	}
	p, err := c.opts.Codec.Decode(d.Envelope)
	if err == nil {
		c.waiters.notifyPayload(p)
		c.guardDonePayload(p) // an outcome another replica handled (guard.go)
	}
	return d.Ack()
}
