// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// ticketGrace is how long past its deadline (and two sweeps) a task's
// guard ticket is held for its outcome before it is abandoned: the outcome
// may have been handled by another replica that told nobody here.
const ticketGrace = 5 * time.Second

// guardTickets holds the guard tickets of the tasks this process admitted,
// by task id, until their outcome is known here. The zero value is ready.
type guardTickets struct {
	mu   sync.Mutex
	byID map[string]*heldTicket
}

type heldTicket struct {
	ticket    *guard.Ticket
	timer     *time.Timer   // abandons the ticket once the task is well past its deadline
	finishing bool          // finishTicket is finishing it; tickets.mu guards this and finished
	finished  chan struct{} // made by a second finisher, closed once it is finished
}

// admit asks Options.Guard to let the call tr through (policy, calls in
// flight, rate, circuit) and holds its ticket until the task's outcome; a
// refusal is the guard's *a2a.Error, wrapped with what was being done.
func (c *Caller) admit(tr *a2a.TaskRequest) error {
	if c.opts.Guard == nil {
		return nil
	}
	t, err := c.opts.Guard.Admit(c.opts.Name, tr.Target)
	if err != nil { // logged and recorded by Invoke or Call (recordRefusal)
		return fmt.Errorf("caller %q: invoke %s.%s: %w", c.opts.Name, tr.Target, tr.Skill, err)
	}
	id := tr.TaskID
	wait := tr.Deadline.Sub(c.opts.Now()) + 2*c.opts.SweepInterval + ticketGrace
	h := &heldTicket{ticket: t, timer: time.AfterFunc(wait, func() { c.guardAbandon(id) })}
	c.tickets.mu.Lock()
	defer c.tickets.mu.Unlock()
	if c.tickets.byID == nil {
		c.tickets.byID = map[string]*heldTicket{}
	}
	c.tickets.byID[id] = h
	return nil
}

// finishTicket finishes the ticket of task id with finish (Done or
// Abandon), if this process holds it, and forgets it. The first to come
// finishes it; a second — a waiter that learned the outcome while the
// response handler frees the slot — returns once that is done, so that a
// Call or Wait never returns with its slot still taken (the next call
// would be refused BUSY).
func (c *Caller) finishTicket(id string, finish func(*guard.Ticket)) {
	c.tickets.mu.Lock()
	h, ok := c.tickets.byID[id]
	if !ok {
		c.tickets.mu.Unlock()
		return
	}
	if h.finishing {
		if h.finished == nil {
			h.finished = make(chan struct{})
		}
		finished := h.finished
		c.tickets.mu.Unlock()
		<-finished
		return
	}
	h.finishing = true
	c.tickets.mu.Unlock()
	h.timer.Stop()
	finish(h.ticket)
	c.tickets.mu.Lock()
	if c.tickets.byID[id] == h { // not a later turn's, admitted meanwhile
		delete(c.tickets.byID, id)
	}
	finished := h.finished
	c.tickets.mu.Unlock()
	if finished != nil {
		close(finished)
	}
}

// guardDone reports the outcome of a task this process finalized to the
// guard: its in-flight slot is freed and its target's circuit told.
func (c *Caller) guardDone(s *StoredResult) {
	var code a2a.ErrorCode
	if s.Error != nil {
		code = s.Error.Code
	}
	c.finishTicket(s.TaskID, func(t *guard.Ticket) { t.Done(code) })
}

// guardSettled frees the slot of a task whose final outcome a waiter of
// this process learned, from an event or a look-up: the call has ended once
// its outcome is stored, and a Call that returned must not leave its slot
// to the response handler (finalized) or a replica's event, which may come
// later (a look-up can see the outcome first), so that the next call is
// not refused BUSY. A question is no end: its slot stays taken.
func (c *Caller) guardSettled(out *Outcome) {
	if out != nil && out.Result != nil && !out.WaitingForInput() {
		c.guardDone(out.Result)
	}
}

// guardDonePayload reports the outcome another replica handled (a result
// or an error broadcast as an event); status updates are ignored.
func (c *Caller) guardDonePayload(p a2a.Payload) {
	switch r := p.(type) {
	case *a2a.TaskResult:
		c.finishTicket(r.TaskID, func(t *guard.Ticket) { t.Done("") })
	case *a2a.TaskError:
		c.finishTicket(r.TaskID, func(t *guard.Ticket) { t.Done(r.Code) })
	}
}

// guardAbandon frees the slot of a task whose outcome this process will
// not learn (never sent, or handled elsewhere), counting it neither way.
func (c *Caller) guardAbandon(id string) { c.finishTicket(id, (*guard.Ticket).Abandon) }

// releaseFinishedTickets frees the slots of tasks another replica finalized
// before this process listened to the replicas' events (Run calls it once
// its event queue is declared: later outcomes arrive as events). A task
// that has left the pending index and whose outcome is stored is finished;
// the outcome tells the circuit how it went.
func (c *Caller) releaseFinishedTickets(ctx context.Context) {
	c.tickets.mu.Lock()
	ids := make([]string, 0, len(c.tickets.byID))
	for id := range c.tickets.byID {
		ids = append(ids, id)
	}
	c.tickets.mu.Unlock()
	for _, id := range ids {
		rec, ok := c.local.get(id)
		if !ok {
			continue
		}
		_, pending, err := c.opts.Memory.IndexScore(ctx, c.pending, id)
		if err != nil || pending {
			continue // still running, or unknown now: its event or its deadline frees it
		}
		// Not pending and stored: finished. Not pending and not stored: not
		// recorded yet (Invoke admits before it records), or long expired —
		// its event or its deadline frees it.
		var s StoredResult
		if found, err := getJSON(ctx, c.opts.Memory, rec.MemoryKey, &s); err == nil && found {
			c.guardDone(&s)
		}
	}
}
