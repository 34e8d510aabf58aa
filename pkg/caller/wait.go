// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Outcome is the end of a task's turn, as stored in working memory: the
// task's final state, or a question of the agent that waits for the
// caller's answer (WaitingForInput, Question; answer it with Reply).
type Outcome struct {
	Invocation
	Result *StoredResult
}

// WaitingForInput reports whether the task is not over but waits for the
// caller's answer to Question (state TASK_STATE_INPUT_REQUIRED or
// TASK_STATE_AUTH_REQUIRED).
func (o *Outcome) WaitingForInput() bool { return o.Result != nil && a2a.WaitsForInput(o.Result.State) }

// Question is what the agent asks when the task waits for input, else nil.
func (o *Outcome) Question() *a2a.Question {
	if !o.WaitingForInput() {
		return nil
	}
	return o.Result.Question
}

// Err returns the task's failure as an *a2a.Error, or nil when it
// completed. A task that waits for input is not over: Err is an
// INPUT_REQUIRED *a2a.Error quoting the question, so that code expecting a
// final answer never takes the question for one.
func (o *Outcome) Err() error {
	if o.WaitingForInput() {
		q := "(no question)"
		if o.Result.Question != nil {
			q = o.Result.Question.Text
		}
		return a2a.NewError(a2a.CodeInputRequired, "agent %q asks (task %s, state %s): %s", o.Result.Agent, o.TaskID, o.Result.State, q)
	}
	if o.Result.Error != nil {
		return o.Result.Error
	}
	if o.Result.State != a2a.TaskStateCompleted {
		return a2a.NewError(a2a.CodeExecutionFailed, "task ended in state %s", o.Result.State)
	}
	return nil
}

// StatusFunc receives the status updates of a task as they arrive.
type StatusFunc func(*a2a.TaskStatus)

// Call invokes and waits for the outcome (see Wait). A task failure is not
// an error of Call: it is in the Outcome (Outcome.Err). A publish whose
// outcome is unknown (see Invoke) is waited for all the same.
func (c *Caller) Call(ctx context.Context, req Request, onStatus StatusFunc) (*Outcome, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	req.Stream = req.Stream || onStatus != nil
	tr, rec, err := c.buildRequest(ctx, req)
	if err != nil {
		c.recordRefusal(ctx, req, err) // a refused call is an outcome too (audit)
		return nil, err
	}
	// Listening before the request is sent, the outcome cannot slip by
	// unseen: there is nothing to look up before waiting.
	events := c.waiters.add(rec.TaskID)
	defer c.waiters.remove(rec.TaskID, events)
	inv, err := c.send(ctx, tr, rec, req.Trace)
	if errors.Is(err, ErrOutcomeUnknown) {
		// Kept: its answer, or its TIMEOUT, ends the wait.
		c.log.Warn("task publish not confirmed; waiting for its outcome", zap.String("task", inv.TaskID), zap.Error(err))
	} else if err != nil {
		c.recordRefusal(ctx, req, err)
		return nil, err
	}
	return c.wait(ctx, inv.TaskID, inv.Deadline, events, onStatus)
}

// Wait blocks until the task's outcome is stored — by whichever replica of
// the caller consumed the response, or by the deadline sweeper — and
// returns it. onStatus (may be nil) sees status updates as they come.
// Run must be running in some replica for responses to be handled.
func (c *Caller) Wait(ctx context.Context, taskID string, onStatus StatusFunc) (*Outcome, error) {
	events := c.waiters.add(taskID)
	defer c.waiters.remove(taskID, events)
	out, deadline, err := c.settle(ctx, taskID, events, onStatus)
	if err != nil || out != nil {
		c.guardSettled(out)
		return out, err
	}
	return c.wait(ctx, taskID, deadline, events, onStatus)
}

// wait is the one loop in which a waiter learns the outcome of its task,
// found pending, whatever the source (see "How an outcome reaches a
// waiter" in the package doc): an event that carries the outcome ends it;
// a status update goes to onStatus; any other wake-up — another replica's
// event, a poll, its own timeout of a task long overdue — looks the
// outcome up in working memory (settle). The poll's timer is the caller's,
// shared by its waits (pollClock).
func (c *Caller) wait(ctx context.Context, taskID string, deadline time.Time, events <-chan event, onStatus StatusFunc) (*Outcome, error) {
	timedOut := false
	for {
		var ev event // the zero event: look the outcome up
		overdue := !timedOut && c.opts.Now().After(deadline.Add(2*c.opts.SweepInterval))
		if overdue {
			// No sweeper got to it (none running?): time it out here, once.
			// Working memory failing (a failover) does not end the wait: the
			// task was sent; it is tried again at the next poll.
			switch err := c.timeout(ctx, taskID); {
			case err == nil:
				timedOut = true
			case !memory.Transient(err):
				return nil, err
			}
		}
		if !overdue || !timedOut {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, ctx.Err())
			case <-c.life.AfterClose():
				return nil, ErrClosed
			case <-c.polls.next():
			case ev = <-events:
			}
		}
		switch {
		case ev.outcome != nil:
			c.guardSettled(ev.outcome)
			return ev.outcome, nil
		case ev.status != nil:
			if onStatus != nil {
				onStatus(ev.status)
			}
			continue
		}
		out, dl, err := c.settleRiding(ctx, taskID, events, onStatus)
		if err != nil || out != nil {
			c.guardSettled(out)
			return out, err
		}
		if timedOut && c.withdrawn(ctx, taskID) { // invoke.go: it never gets an outcome
			return nil, fmt.Errorf("caller %q: wait for %s: %w: it was withdrawn (claimed unsent), never published", c.opts.Name, taskID, ErrUnknownTask)
		}
		deadline = dl
	}
}

// settleRiding is settle retried while working memory is unavailable (a
// Redis failover, an outage), for at most Options.MemoryRetryBound: the
// task was sent and its outcome will be stored, so a look-up that failed
// for now must not end the wait with an error (Call would then report a
// task that runs as failed, and its id would be lost).
func (c *Caller) settleRiding(ctx context.Context, taskID string, events <-chan event, onStatus StatusFunc) (*Outcome, time.Time, error) {
	var out *Outcome
	var deadline time.Time
	err := memory.Retry(ctx, c.opts.MemoryRetryBound, func(ctx context.Context) (err error) {
		out, deadline, err = c.settle(ctx, taskID, events, onStatus)
		return err
	}, func(f memory.Failure) {
		if f.First() {
			c.log.Warn("working memory failed while waiting for a task's outcome; the wait goes on", zap.String("task", taskID), zap.Error(f.Err))
		}
	})
	return out, deadline, err
}

// settle looks the outcome of a task up in working memory, where every
// outcome is stored before any waiter is told of it. When it is there, the
// status updates already waiting in events go to onStatus first, without
// blocking: an outcome found by a look-up (a poll, a replica's event, or
// before the wait began) does not drop the updates that preceded it.
func (c *Caller) settle(ctx context.Context, taskID string, events <-chan event, onStatus StatusFunc) (*Outcome, time.Time, error) {
	out, deadline, err := c.lookup(ctx, taskID)
	if out == nil {
		return nil, deadline, err
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return out, deadline, err
			}
			if ev.status != nil && onStatus != nil {
				onStatus(ev.status)
			}
		default:
			return out, deadline, err
		}
	}
}

// lookup returns the stored end of a task's turn — its final outcome, or
// the question it waits on — or nil and the deadline of the turn that runs.
// A question whose answer started the next turn is no end: that turn runs.
func (c *Caller) lookup(ctx context.Context, taskID string) (*Outcome, time.Time, error) {
	rec, err := c.loadRecord(ctx, taskID)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, err)
	}
	if rec == nil {
		return nil, time.Time{}, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, ErrUnknownTask)
	}
	var res StoredResult
	found, err := getJSON(ctx, c.opts.Memory, rec.MemoryKey, &res)
	if err != nil || !found {
		return nil, rec.Deadline, err
	}
	if !a2a.WaitsForInput(res.State) {
		return &Outcome{Invocation: rec.turnInvocation(res.Turn, rec.Deadline), Result: &res}, rec.Deadline, nil
	}
	at, err := c.locate(ctx, rec, &res)
	switch {
	case err != nil:
		return nil, rec.Deadline, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, err)
	case at.waiting():
		return &Outcome{Invocation: rec.turnInvocation(res.Turn, res.AnswerBy), Result: &res}, res.AnswerBy, nil
	case at.start.By == startReply:
		return nil, at.start.Deadline, nil // the answer's turn runs
	}
	return nil, res.AnswerBy, nil // the wait ended: its outcome is being stored
}

// pollSteps is how many ticks of a pollClock make its interval.
const pollSteps = 4

// pollClock is the poll's one timer for all the waits of a Caller (source 3
// of "How an outcome reaches a waiter"), in place of a ticker a wait. It
// ticks pollSteps times an interval while a wait waits for a tick; a wait
// asks for its next poll (next) and is woken, with every wait that asked
// between the same two ticks, pollSteps+1 ticks on: at least interval after
// it asked, and at most interval·(1+1/pollSteps). As with a ticker of its
// own, a wait shorter than interval never polls, and a lost event is found
// about interval after the wait began. A wait that ended leaves nothing
// running past its tick.
type pollClock struct {
	interval time.Duration

	mu      sync.Mutex
	ticks   int                          // ticks so far
	due     [pollSteps + 1]chan struct{} // due[t%len(due)] closes at tick t; nil when no wait asked for it
	timer   *time.Timer                  // ticks: made by the first next, then reset
	running bool                         // the timer runs
}

// next returns the channel closed at the wait's next poll.
func (p *pollClock) next() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := (p.ticks + pollSteps + 1) % len(p.due)
	if p.due[i] == nil {
		p.due[i] = make(chan struct{})
	}
	if !p.running {
		p.running = true
		if p.timer == nil {
			p.timer = time.AfterFunc(p.interval/pollSteps, p.tick)
		} else {
			p.timer.Reset(p.interval / pollSteps)
		}
	}
	return p.due[i]
}

// tick wakes the waits whose poll is due, and stops the timer when no wait
// waits for a later tick.
func (p *pollClock) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ticks++
	i := p.ticks % len(p.due)
	if p.due[i] != nil {
		close(p.due[i])
		p.due[i] = nil
	}
	for _, ch := range p.due {
		if ch != nil {
			p.timer.Reset(p.interval / pollSteps)
			return
		}
	}
	p.running = false
}

// event is what a waiter is woken with: a status update, an outcome this
// process stored, or neither (the zero event: another replica stored it,
// look it up).
type event struct {
	status  *a2a.TaskStatus
	outcome *Outcome
}

// waiters routes what this process learns of tasks to the Calls, Waits and
// Watches waiting for them. notify is the one way in.
type waiters struct {
	mu   sync.Mutex
	byID map[string][]chan event
}

// waiterBuffer is how many events a waiter holds unread; beyond it status
// updates are dropped (the outcome never is: the waiter polls memory).
const waiterBuffer = 16

func newWaiters() *waiters { return &waiters{byID: map[string][]chan event{}} }

func (w *waiters) add(taskID string) chan event {
	ch := make(chan event, waiterBuffer)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.byID[taskID] = append(w.byID[taskID], ch)
	return ch
}

func (w *waiters) remove(taskID string, ch chan event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	list := w.byID[taskID]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.byID, taskID)
	} else {
		w.byID[taskID] = list
	}
}

// notify hands ev to the waiters of task id without blocking (a full
// waiter misses a status update, never the outcome: it polls memory) and
// reports whether the task has any waiter in this process. It is fed by
// this process's finalizing (tell) and by the other replicas' events
// (notifyPayload).
func (w *waiters) notify(id string, ev event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range w.byID[id] {
		select {
		case ch <- ev:
		default:
		}
	}
	return len(w.byID[id]) > 0
}

// notifyPayload passes on a response that another replica handled and
// broadcast: a status update as it is, a result or an error as the zero
// event (its outcome is stored: look it up).
func (w *waiters) notifyPayload(p a2a.Payload) {
	switch r := p.(type) {
	case *a2a.TaskStatus:
		w.notify(r.TaskID, event{status: r})
	case *a2a.TaskResult:
		w.notify(r.TaskID, event{})
	case *a2a.TaskError:
		w.notify(r.TaskID, event{})
	}
}

// tell passes what this process learned of task id as it handled m — a
// status update, or the outcome it stored — to the task's waiters here, or,
// when none waits here, broadcasts m to the other replicas, whose waiters
// look the outcome up. m is nil when there is nothing to broadcast.
func (c *Caller) tell(ctx context.Context, id string, ev event, m *bus.Message) {
	if !c.waiters.notify(id, ev) && m != nil {
		c.broadcast(ctx, *m)
	}
}
