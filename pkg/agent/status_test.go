package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// slowStatusBus holds the publish of the initial working status (the one
// without a message) until release is closed, like a broker slow to confirm it.
type slowStatusBus struct {
	bus.Bus
	once    sync.Once
	held    chan struct{} // closed when the first status publish is being held
	release chan struct{}
}

func newSlowStatusBus(b bus.Bus) *slowStatusBus {
	return &slowStatusBus{Bus: b, held: make(chan struct{}), release: make(chan struct{})}
}

func (s *slowStatusBus) Publish(ctx context.Context, m bus.Message) error {
	if p, err := (a2a.Codec{}).Decode(m.Envelope()); err == nil {
		if st, ok := p.(*a2a.TaskStatus); ok && st.Message == nil {
			s.once.Do(func() { close(s.held) })
			select {
			case <-s.release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return s.Bus.Publish(ctx, m)
}

func (h *harness) agentOn(b bus.Bus, skill string, fn Handler) *Agent {
	h.t.Helper()
	a, err := New(Options{Card: a2a.AgentCard{Name: "Worker"}, Bus: b, StopTimeout: 2 * time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := a.Handle(skill, fn); err != nil {
		h.t.Fatal(err)
	}
	return a
}

// The handler runs while the working status's confirm is outstanding, but
// the result is published only after it, so the caller sees them in order.
func TestHandlerDoesNotWaitForTheWorkingStatus(t *testing.T) {
	h := newHarness(t)
	slow := newSlowStatusBus(h.broker.Connect())
	ran := make(chan struct{})
	h.start(h.agentOn(slow, "echo", func(ctx context.Context, task *Task) (*Result, error) {
		close(ran)
		return echo(ctx, task)
	}))
	req := h.send("Worker", "echo", "fast")
	<-ran // the handler ran although the status is held
	time.Sleep(50 * time.Millisecond)
	if h.hasFinal(req.TaskID) {
		t.Fatal("the result was published before the working status")
	}
	close(slow.release)
	if res, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || a2a.MessageText(res.Message) != "fast" {
		t.Fatalf("final reply = %#v", h.final(req.TaskID))
	}
	st := h.statuses(req.TaskID)
	if len(st) != 1 || st[0].State != a2a.StateWorking {
		t.Fatalf("statuses = %+v", st)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, p := range h.replies {
		if _, ok := p.(*a2a.TaskStatus); ok {
			if i == len(h.replies)-1 {
				t.Fatal("the working status arrived after the result")
			}
			break
		}
	}
}

// Progress waits for the working status, so status updates keep their order.
func TestProgressFollowsTheWorkingStatus(t *testing.T) {
	h := newHarness(t)
	slow := newSlowStatusBus(h.broker.Connect())
	h.start(h.agentOn(slow, "step", func(ctx context.Context, task *Task) (*Result, error) {
		if err := task.Progress(ctx, "halfway", 0.5); err != nil {
			return nil, err
		}
		return TextResult("done"), nil
	}))
	req := h.send("Worker", "step", "")
	<-slow.held
	time.Sleep(50 * time.Millisecond) // room for a progress update to overtake, if it could
	close(slow.release)
	if _, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok {
		t.Fatalf("final reply = %#v", h.final(req.TaskID))
	}
	st := h.statuses(req.TaskID)
	if len(st) != 2 || st[0].Message != nil || a2a.MessageText(st[1].Message) != "halfway" {
		t.Fatalf("statuses = %+v, want the working status, then halfway", st)
	}
}
