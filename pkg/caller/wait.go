package caller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Outcome is the final state of a task, as stored in working memory.
type Outcome struct {
	Invocation
	Result *StoredResult
}

// Err returns the task's failure as an *a2a.Error, or nil when it completed.
func (o *Outcome) Err() error {
	if o.Result.Error != nil {
		return o.Result.Error
	}
	if o.Result.State != a2a.StateCompleted {
		return a2a.NewError(a2a.CodeExecutionFailed, "task ended in state %s", o.Result.State)
	}
	return nil
}

// StatusFunc receives the status updates of a task as they arrive.
type StatusFunc func(*a2a.TaskStatus)

// Call invokes and waits for the outcome (see Wait). A task failure is not
// an error of Call: it is in the Outcome (Outcome.Err).
func (c *Caller) Call(ctx context.Context, req Request, onStatus StatusFunc) (*Outcome, error) {
	inv, err := c.Invoke(ctx, req)
	if err != nil {
		return nil, err
	}
	return c.Wait(ctx, inv.TaskID, onStatus)
}

// Wait blocks until the task's outcome is stored — by whichever replica of
// the caller consumed the response, or by the deadline sweeper — and
// returns it. onStatus (may be nil) sees status updates as they come.
// Run must be running in some replica for responses to be handled.
func (c *Caller) Wait(ctx context.Context, taskID string, onStatus StatusFunc) (*Outcome, error) {
	events := c.waiters.add(taskID)
	defer c.waiters.remove(taskID, events)
	poll := time.NewTicker(DefaultPollInterval)
	defer poll.Stop()
	for {
		out, deadline, err := c.lookup(ctx, taskID)
		if err != nil || out != nil {
			return out, err
		}
		if c.opts.Now().After(deadline.Add(2 * c.opts.SweepInterval)) {
			// No sweeper got to it (none running?): time it out here.
			if err := c.timeout(ctx, taskID); err != nil {
				return nil, err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, ctx.Err())
		case <-c.closing:
			return nil, ErrClosed
		case <-poll.C:
		case ev := <-events:
			if ev.outcome != nil {
				return ev.outcome, nil
			}
			if ev.status != nil && onStatus != nil {
				onStatus(ev.status)
			}
		}
	}
}

// lookup returns the stored outcome of a task, or nil and its deadline.
func (c *Caller) lookup(ctx context.Context, taskID string) (*Outcome, time.Time, error) {
	var rec Record
	found, err := getJSON(ctx, c.opts.Memory, recordKey(c.opts.Name, taskID), &rec)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, err)
	}
	if !found {
		return nil, time.Time{}, fmt.Errorf("caller %q: wait for %s: %w", c.opts.Name, taskID, ErrUnknownTask)
	}
	if pending, err := c.opts.Memory.Get(ctx, pendingKey(c.opts.Name, taskID)); err == nil && len(pending) > 0 {
		return nil, rec.Deadline, nil
	}
	var res StoredResult
	found, err = getJSON(ctx, c.opts.Memory, rec.MemoryKey, &res)
	if err != nil || !found {
		return nil, rec.Deadline, err
	}
	inv := Invocation{TaskID: rec.TaskID, SessionID: rec.SessionID, Target: rec.Target, MemoryKey: rec.MemoryKey, Deadline: rec.Deadline}
	return &Outcome{Invocation: inv, Result: &res}, rec.Deadline, nil
}

// event is what a waiter is woken with: a status update, an outcome stored
// by this process, or neither (another replica stored it: look it up).
type event struct {
	status  *a2a.TaskStatus
	outcome *Outcome
}

// waiters routes the events of this process to the Calls waiting for them.
type waiters struct {
	mu   sync.Mutex
	byID map[string][]chan event
}

func newWaiters() *waiters { return &waiters{byID: map[string][]chan event{}} }

func (w *waiters) add(taskID string) chan event {
	ch := make(chan event, 64)
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
// waiter misses a status update, never the outcome: it polls memory).
func (w *waiters) notify(id string, ev event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range w.byID[id] {
		select {
		case ch <- ev:
		default:
		}
	}
}

// notifyPayload wakes the waiters of a response handled by any replica.
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
