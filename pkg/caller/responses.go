package caller

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	p, err := c.opts.Codec.Decode(d.Envelope())
	if err != nil {
		c.log.Warn("undecodable response dead-lettered", zap.String("message_id", d.MessageID), zap.Error(err))
		return d.DeadLetter()
	}
	var stored *StoredResult
	switch r := p.(type) {
	case *a2a.TaskStatus:
		if !c.waiters.notify(r.TaskID, event{status: r}) {
			c.broadcast(ctx, d.Message)
		}
		return d.Ack()
	case *a2a.TaskResult:
		stored = &StoredResult{TaskID: r.TaskID, Agent: r.Agent, State: r.State, Status: r.Status, Message: r.Message,
			Artifacts: r.Artifacts, Confidence: r.Confidence, Warnings: r.Warnings, Metadata: r.Metadata}
	case *a2a.TaskError:
		stored = &StoredResult{TaskID: r.TaskID, Agent: r.Agent, State: r.State, Status: r.Status(), Error: r.AsError()}
	default:
		c.log.Warn("unexpected message on the response queue dead-lettered", zap.String("type", d.Type), zap.String("message_id", d.MessageID))
		return d.DeadLetter()
	}
	// A context that survives the consumer's stop: a finalization that has
	// begun completes (memory retries end only with Close).
	out, err := c.finalize(c.life.ClosingContext(), stored, claimResult)
	if err != nil {
		if errors.Is(err, ErrUnknownTask) {
			c.log.Warn("response for an unknown task dead-lettered", zap.String("task", stored.TaskID), zap.Error(err))
			return d.DeadLetter()
		}
		return err // requeued; finalize is idempotent
	}
	if !c.waiters.notify(stored.TaskID, event{outcome: out}) { // waiters in this process need no look-up
		c.broadcast(ctx, d.Message)
	}
	return d.Ack()
}

// finalize stores the outcome of a task at its memory key, appends one
// notification turn to its session, and clears it from the pending set.
// Every step is idempotent, so a redelivered response changes nothing twice.
// by is claimResult for an agent's answer and claimTimeout for the sweeper:
// whichever claims the task first decides whether a result is late. It
// returns the stored outcome, or nil when the sweeper lost the race to the
// real answer.
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
		return nil, fmt.Errorf("task %s was sent to %q but answered by %q: %w", s.TaskID, rec.Target, s.Agent, ErrUnknownTask)
	}
	s.Caller, s.SessionID, s.Skill, s.Agent = rec.Caller, rec.SessionID, rec.Skill, rec.Target

	// An answer well before its deadline cannot have been timed out (the
	// sweeper claims only past the deadline), so its claim travels in the
	// batch that stores it: one round trip. Nearer the deadline, and for the
	// sweeper, the claim is decided first, then the outcome is written.
	early := by == claimResult && c.opts.Now().Before(rec.Deadline.Add(-claimMargin))
	if !early {
		claim, err := c.claim(ctx, s.TaskID, by)
		if err != nil {
			return nil, err
		}
		if by == claimTimeout && claim != claimTimeout {
			return nil, nil // the real answer won the race: nothing to time out
		}
		s.Late = by == claimResult && claim == claimTimeout
	}
	s.StoredAt = c.opts.Now()

	result, err := s.encode()
	if err != nil {
		return nil, fmt.Errorf("encode result of task %s: %w", s.TaskID, err)
	}
	notify := memory.AppendTurnOnceOp(rec.SessionID, "a2a-notify/"+s.TaskID+"/"+by,
		notificationTurn(s, rec.MemoryKey, by == claimTimeout))
	pending := memory.IndexRemoveOp(pendingIndex(c.opts.Name), s.TaskID)
	entry := c.historyEntry(rec, s) // the call history's entry and the outcome's log line
	history := c.historyOp(entry)
	// An answer is retried by its redelivery (it is acked only after this), so
	// one batch stores it, notifies it and takes it out of the pending index.
	// A TIMEOUT is retried by the sweeper only while the task is in the
	// index, so it leaves the index last, after the batch that stores it —
	// never over a real answer that arrived (late) meanwhile — and notifies it.
	switch {
	case by == claimTimeout:
		err = c.batch(ctx, "store and notify timeout", memory.SetIfAbsentOp(rec.MemoryKey, result, c.opts.ResultTTL), notify, history)
		if err == nil {
			err = c.batch(ctx, "clear pending", pending)
		}
	case early:
		err = c.batch(ctx, "claim, store and notify result", c.claimOp(s.TaskID, by),
			memory.SetOp(rec.MemoryKey, result, c.opts.ResultTTL), notify, history, pending)
	default:
		err = c.batch(ctx, "store and notify result", memory.SetOp(rec.MemoryKey, result, c.opts.ResultTTL), notify, history, pending)
	}
	if err != nil {
		return nil, err
	}
	c.local.drop(s.TaskID)
	c.guardDone(s) // frees the guard's slot and tells the circuit (guard.go)
	c.logOutcome(entry)
	return &Outcome{Invocation: rec.invocation(), Result: s}, nil
}

// batch runs ops in one working-memory round trip, retried while memory is
// unavailable (every op is idempotent).
func (c *Caller) batch(ctx context.Context, what string, ops ...memory.Op) error {
	return c.retry(ctx, what, func(ctx context.Context) error {
		_, err := c.opts.Memory.Batch(ctx, ops...)
		return err
	})
}

// claim records who finalized the task first and returns the winner.
func (c *Caller) claim(ctx context.Context, taskID, by string) (string, error) {
	var winner string
	err := c.retry(ctx, "claim task", func(ctx context.Context) error {
		res, err := c.opts.Memory.Batch(ctx, c.claimOp(taskID, by))
		if err != nil {
			return err
		}
		if res[0].Applied {
			winner = by
			return nil
		}
		b, err := c.opts.Memory.Get(ctx, claimKey(c.opts.Name, taskID))
		winner = string(b)
		return err
	})
	return winner, err
}

// claimOp claims the finalization of a task for by, if nobody has.
func (c *Caller) claimOp(taskID, by string) memory.Op {
	return memory.SetIfAbsentOp(claimKey(c.opts.Name, taskID), []byte(by), c.opts.ResultTTL+c.opts.MaxTimeout)
}

// claimMargin is how long before its deadline an answer is taken to be on
// time without asking who claimed the task: the deadline sweepers of the
// caller's replicas (whose clocks must agree within it) claim only past it.
const claimMargin = 5 * time.Second

// broadcast tells every replica of this caller (their waiters) about a
// response. It is sent only when no Call or Wait of this process waits for
// the task: the replica that waits is then elsewhere. (A second waiter in
// another replica at the same time finds the outcome by polling.) Best
// effort: waiters also poll working memory.
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
	if d.Headers[headerOrigin] == c.opts.InstanceID {
		return d.Ack()
	}
	env := d.Envelope()
	delete(env.Headers, headerOrigin)
	p, err := c.opts.Codec.Decode(env)
	if err == nil {
		c.waiters.notifyPayload(p)
		c.guardDonePayload(p) // an outcome another replica handled (guard.go)
	}
	return d.Ack()
}
