// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// slowStatusBus holds the publish of the initial working status (the one
// without a message) until release is closed, like a broker that cannot take
// it (reconnecting); it records the order of publishes, and for each whether
// its confirm was waived.
type slowStatusBus struct {
	bus.Bus
	once    sync.Once
	held    chan struct{} // closed when the first status publish is being held
	release chan struct{}

	mu        sync.Mutex
	published []string // "status" or "reply", with "!" when NoConfirm
}

func newSlowStatusBus(b bus.Bus) *slowStatusBus {
	return &slowStatusBus{Bus: b, held: make(chan struct{}), release: make(chan struct{})}
}

func (s *slowStatusBus) Publish(ctx context.Context, m bus.Message) error {
	p, err := (a2a.Codec{}).Decode(m.Envelope)
	if err != nil {
		return s.Bus.Publish(ctx, m)
	}
	if st, ok := p.(*a2a.TaskStatus); ok && st.Message == nil {
		s.once.Do(func() { close(s.held) })
		select {
		case <-s.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var what string
	switch p.(type) {
	case *a2a.TaskStatus:
		what = "status"
	case *a2a.TaskResult, *a2a.TaskError:
		what = "reply"
	default: // announcements
		return s.Bus.Publish(ctx, m)
	}
	if m.NoConfirm {
		what += "!"
	}
	s.mu.Lock()
	s.published = append(s.published, what)
	s.mu.Unlock()
	return s.Bus.Publish(ctx, m)
}

func (s *slowStatusBus) order() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.published...)
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

// The working status is sent before the handler runs, without waiting for
// its confirm (it is advisory); the reply, confirmed, follows it.
func TestWorkingStatusGoesUnconfirmedBeforeTheHandler(t *testing.T) {
	h := newHarness(t)
	rec := newSlowStatusBus(h.broker.Connect())
	close(rec.release) // hold nothing
	var atStart []string
	h.start(h.agentOn(rec, "echo", func(ctx context.Context, task *Task) (*Result, error) {
		atStart = rec.order()
		return echo(ctx, task)
	}))
	req := h.send("Worker", "echo", "fast")
	if res, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || a2a.MessageText(res.Message) != "fast" {
		t.Fatalf("final reply = %#v", h.final(req.TaskID))
	}
	if strings.Join(atStart, ",") != "status!" {
		t.Fatalf("published when the handler started: %v, want the unconfirmed working status", atStart)
	}
	if got := strings.Join(rec.order(), ","); got != "status!,reply" {
		t.Fatalf("published %s, want status!,reply", got)
	}
	if st := h.statuses(req.TaskID); len(st) != 1 || st[0].State != a2a.TaskStateWorking {
		t.Fatalf("statuses = %+v", st)
	}
}

// A broker that cannot take the working status (reconnecting) delays the
// handler by statusSendTimeout at most: the task still runs and is answered.
func TestStuckWorkingStatusDelaysTheHandlerBoundedly(t *testing.T) {
	h := newHarness(t)
	stuck := newSlowStatusBus(h.broker.Connect()) // never released
	h.start(h.agentOn(stuck, "echo", echo))
	req := h.send("Worker", "echo", "anyway")
	if res, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || a2a.MessageText(res.Message) != "anyway" {
		t.Fatalf("final reply = %#v", h.final(req.TaskID))
	}
	if st := h.statuses(req.TaskID); len(st) != 0 {
		t.Fatalf("statuses = %+v, want none (the working status was abandoned)", st)
	}
}

// stepTask runs a task whose handler reports progress, streamed or not, and
// returns the final reply, the status updates and the publishes in order.
func stepTask(t *testing.T, stream bool) (a2a.Payload, []*a2a.TaskStatus, string) {
	h := newHarness(t)
	rec := newSlowStatusBus(h.broker.Connect())
	close(rec.release)
	h.start(h.agentOn(rec, "step", func(ctx context.Context, task *Task) (*Result, error) {
		if err := task.Progress(ctx, "halfway", 0.5); err != nil {
			return nil, err
		}
		return TextResult("done"), nil
	}))
	req := h.send("Worker", "step", "", func(r *a2a.TaskRequest) { r.Stream = stream })
	final := h.final(req.TaskID)
	return final, h.statuses(req.TaskID), strings.Join(rec.order(), ",")
}

// Progress updates follow the working status, in order, unconfirmed.
func TestProgressFollowsTheWorkingStatus(t *testing.T) {
	final, st, order := stepTask(t, true)
	if _, ok := final.(*a2a.TaskResult); !ok {
		t.Fatalf("final reply = %#v", final)
	}
	if len(st) != 2 || st[0].Message != nil || a2a.MessageText(st[1].Message) != "halfway" {
		t.Fatalf("statuses = %+v, want the working status, then halfway", st)
	}
	if order != "status!,status!,reply" {
		t.Fatalf("published %s, want status!,status!,reply", order)
	}
}

// A task whose caller did not ask for status updates (A2A message/send) gets
// its final reply only: no working status, and Progress publishes nothing.
func TestNoStatusUpdatesUnlessStreamed(t *testing.T) {
	final, st, order := stepTask(t, false)
	if res, ok := final.(*a2a.TaskResult); !ok || a2a.MessageText(res.Message) != "done" {
		t.Fatalf("final reply = %#v", final)
	}
	if len(st) != 0 || order != "reply" {
		t.Fatalf("statuses %+v, published %s; want the reply only", st, order)
	}
}
