package agent

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// canceledMemory is how long an instance remembers a cancel for a task it
// is not running, so the task is skipped if it is dequeued later.
const canceledMemory = 10 * time.Minute

// runningTasks maps the tasks running in this instance to their cancel
// functions, and remembers recent cancels of tasks not (yet) running here.
// Only the task's own caller may cancel it.
type runningTasks struct {
	mu       sync.Mutex
	running  map[string]runningTask
	canceled map[string]canceledTask
}

type runningTask struct {
	caller string
	cancel context.CancelCauseFunc
}

type canceledTask struct {
	caller string
	at     time.Time
}

func newRunningTasks() *runningTasks {
	return &runningTasks{running: map[string]runningTask{}, canceled: map[string]canceledTask{}}
}

func (r *runningTasks) add(id, caller string, cancel context.CancelCauseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running[id] = runningTask{caller: caller, cancel: cancel}
}

func (r *runningTasks) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, id)
}

// cancel cancels the task if it runs here for caller, and remembers the
// cancel either way; it reports whether a running task was canceled.
func (r *runningTasks) cancel(id, caller string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, c := range r.canceled {
		if now.Sub(c.at) > canceledMemory {
			delete(r.canceled, k)
		}
	}
	r.canceled[id] = canceledTask{caller: caller, at: now}
	if t, ok := r.running[id]; ok && a2a.SameAgent(t.caller, caller) {
		t.cancel(errCanceledByCaller)
		return true
	}
	return false
}

// wasCanceled reports whether caller canceled task id before it started here.
func (r *runningTasks) wasCanceled(id, caller string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.canceled[id]
	return ok && a2a.SameAgent(c.caller, caller)
}

// handleInstance consumes this instance's queue: task.cancel messages and
// directories' discovery queries (answered with an announcement at once).
func (a *Agent) handleInstance(ctx context.Context, d *bus.Delivery) error {
	p, err := a.opts.Codec.Decode(d.Envelope())
	if err != nil {
		a.log.Warn("undecodable instance message dropped", zap.String("type", d.Type), zap.String("message_id", d.MessageID), zap.Error(err))
		return d.Ack() // an exclusive queue has no dead-letter use; the error is logged
	}
	switch m := p.(type) {
	case *a2a.TaskCancel:
		if a.running.cancel(m.TaskID, m.Caller, a.opts.Now()) {
			a.log.Info("task cancel requested", zap.String("task", m.TaskID), zap.String("caller", m.Caller))
		}
	case *a2a.DiscoveryQuery:
		a.announce(ctx, false)
	}
	return d.Ack()
}
