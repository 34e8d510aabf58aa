// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// A request with a wait bound (startBy) runs for its run time from when the
// agent took it — not until its deadline, which includes the whole wait —
// and the agent tells the caller it took it (one working status, though
// the request is not streamed). Past the run time the answer is TIMEOUT.
func TestRunDeadlineStartsWhenTaken(t *testing.T) {
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		const run = 700 * time.Millisecond
		target := w.N("Cold")
		type seen struct{ lower, upper, deadline time.Time }
		got := make(chan seen, 1)
		a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		var lower time.Time
		if err := a.Handle("work", func(ctx context.Context, _ *Task) (*Result, error) {
			dl, _ := ctx.Deadline()
			got <- seen{lower: lower, upper: time.Now(), deadline: dl}
			<-ctx.Done()
			return nil, ctx.Err()
		}); err != nil {
			t.Fatal(err)
		}
		raw := newRawClient(t, w, w.N("Patient"))
		lower = time.Now()
		req := raw.send(target, "work", raw.name, func(r *a2a.TaskRequest) {
			r.StartBy = time.Now().Add(time.Hour) // a long wait for a cold start
			r.Deadline = r.StartBy.Add(run)
		})
		testworld.Start(t, a) // the agent starts after the call

		s := <-got
		if s.deadline.Before(s.lower.Add(run)) || s.deadline.After(s.upper.Add(run)) {
			t.Fatalf("handler deadline %v, want the run time %s after the take (between %v and %v), not the request's %v",
				s.deadline, run, s.lower.Add(run), s.upper.Add(run), req.Deadline)
		}
		e, ok := raw.final(req.TaskID).(*a2a.TaskError)
		if !ok || e.Code != a2a.CodeTimeout || !strings.Contains(e.Message, "run time of 700ms") {
			t.Fatalf("reply = %+v, want TIMEOUT at the run time", raw.final(req.TaskID))
		}
		var notices int
		for _, p := range raw.all() {
			if st, ok := p.(*a2a.TaskStatus); ok && st.TaskID == req.TaskID && st.State == a2a.TaskStateWorking {
				notices++
			}
		}
		if notices != 1 {
			t.Fatalf("%d working statuses for an unstreamed request with startBy, want the one take notice", notices)
		}
	})
}

// The first delivery of a request past its startBy is EXPIRED_IN_QUEUE and
// does not run; a later attempt (taken before, crashed) runs, bound by the
// deadline only; an old request (no startBy) past its deadline is TIMEOUT.
func TestExpiredInQueue(t *testing.T) {
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		target := w.N("Late")
		ran := make(chan string, 4)
		a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle("work", func(_ context.Context, tk *Task) (*Result, error) {
			ran <- tk.Request.TaskID
			return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "done")}, nil
		}); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
		raw := newRawClient(t, w, w.N("Patient"))
		past := func(attempt int, startBy bool) *a2a.TaskRequest {
			now := time.Now()
			req := &a2a.TaskRequest{TaskID: uuid.NewString(), SessionID: "raw", Caller: raw.name,
				Target: target, Skill: "work", Message: a2a.NewTextMessage(a2a.MessageRoleUser, "x"),
				CreatedAt: now.Add(-time.Minute), Deadline: now.Add(time.Hour)}
			if startBy {
				req.StartBy = now.Add(-time.Second) // its wait is over; its deadline is not
			} else {
				req.Deadline = now.Add(-time.Second)
			}
			c := a2a.Codec{Now: func() time.Time { return now.Add(-time.Minute) }} // sent when it could still be taken
			env, err := c.Encode(req, a2a.Trace{})
			if err != nil {
				t.Fatal(err)
			}
			if attempt > 1 {
				env.Headers[bus.HeaderAttempt] = "2"
			}
			key, _ := a2a.TaskRoutingKey(target)
			if err := raw.b.Declare(context.Background(), mustTaskQueue(target)); err != nil {
				t.Fatal(err)
			}
			if err := raw.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: key}); err != nil {
				t.Fatal(err)
			}
			return req
		}
		expired := past(1, true)
		if e, ok := raw.final(expired.TaskID).(*a2a.TaskError); !ok || e.Code != a2a.CodeExpiredInQueue ||
			e.Status() != a2a.StatusTimeout || !strings.Contains(e.Message, "no agent took the task") {
			t.Fatalf("first delivery past startBy: %+v, want EXPIRED_IN_QUEUE", raw.final(expired.TaskID))
		}
		old := past(1, false)
		if e, ok := raw.final(old.TaskID).(*a2a.TaskError); !ok || e.Code != a2a.CodeTimeout {
			t.Fatalf("an old request past its deadline: %+v, want TIMEOUT", raw.final(old.TaskID))
		}
		if w.Kind != "real" { // the embedded bus counts attempts itself: a publish cannot set one
			if len(ran) != 0 {
				t.Fatalf("ran %s, want nothing run", <-ran)
			}
			return
		}
		retried := past(2, true)
		if r, ok := raw.final(retried.TaskID).(*a2a.TaskResult); !ok || a2a.MessageText(r.Message) != "done" {
			t.Fatalf("a later attempt past startBy: %+v, want it run (bound by the deadline only)", raw.final(retried.TaskID))
		}
		if id := <-ran; id != retried.TaskID || len(ran) != 0 {
			t.Fatalf("ran %s (and %d more), want only the retried task", id, len(ran))
		}
	})
}

// taskDeadline: with startBy the run time from the take, never past the
// deadline; without, the deadline (an old single-deadline request).
func TestTaskDeadlineWithStartBy(t *testing.T) {
	a := &Agent{opts: Options{MaxTaskDuration: time.Hour}}
	took := time.Now()
	req := &a2a.TaskRequest{StartBy: took.Add(10 * time.Minute), Deadline: took.Add(10*time.Minute + 30*time.Second)}
	if dl, clamped := a.taskDeadline(req, took); clamped || !dl.Equal(took.Add(30*time.Second)) {
		t.Errorf("taken at once: %v (clamped %v), want the take + 30s", dl, clamped)
	}
	lateTake := took.Add(10*time.Minute + 20*time.Second) // a later attempt, past startBy
	if dl, _ := a.taskDeadline(req, lateTake); !dl.Equal(req.Deadline) {
		t.Errorf("taken late: %v, want the deadline %v", dl, req.Deadline)
	}
	old := &a2a.TaskRequest{Deadline: took.Add(time.Minute)}
	if dl, _ := a.taskDeadline(old, took); !dl.Equal(old.Deadline) {
		t.Errorf("old request: %v, want its deadline", dl)
	}
}
