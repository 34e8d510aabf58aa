// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// A request whose deadline is an hour away (a raw publisher's) still gets a
// handler deadline of at most MaxTaskDuration after receipt, and the task
// ends TIMEOUT at that clamp: no delivery stays unacked until the broker's
// consumer_timeout.
func TestMaxTaskDurationClampsTheDeadline(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		const maxDuration = 300 * time.Millisecond
		target := w.N("Slow")
		type seen struct {
			deadline time.Time
			ok       bool
			upper    time.Time // receipt happened before this: the clamp is at most upper
		}
		got := make(chan seen, 1)
		a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), MaxTaskDuration: maxDuration, StopTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle("work", func(ctx context.Context, _ *Task) (*Result, error) {
			dl, ok := ctx.Deadline()
			got <- seen{deadline: dl, ok: ok, upper: time.Now().Add(maxDuration)}
			<-ctx.Done()
			return nil, ctx.Err()
		}); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
		raw := newRawClient(t, w, w.N("Patient"))
		req := raw.send(target, "work", raw.name) // due in an hour

		s := <-got
		if !s.ok || !s.deadline.Before(req.Deadline) || s.deadline.After(s.upper) {
			t.Fatalf("handler deadline %v (set %v), want at most receipt + %s (before %v), not the request's %v",
				s.deadline, s.ok, maxDuration, s.upper, req.Deadline)
		}
		e, ok := raw.final(req.TaskID).(*a2a.TaskError)
		if !ok || e.Code != a2a.CodeTimeout || !strings.Contains(e.Message, "maximum task duration") {
			t.Fatalf("reply = %+v, want TIMEOUT at the maximum task duration", raw.final(req.TaskID))
		}
	})
}

// A request due sooner than MaxTaskDuration keeps its own deadline.
func TestMaxTaskDurationKeepsAnEarlierDeadline(t *testing.T) {
	a, err := New(Options{Card: a2a.AgentCard{Name: "A"}, Bus: inproc.New(inproc.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	received := time.Now()
	due := received.Add(time.Minute)
	if dl, clamped := a.taskDeadline(&a2a.TaskRequest{Deadline: due}, received); clamped || !dl.Equal(due) {
		t.Fatalf("deadline %v (clamped %v), want the request's %v", dl, clamped, due)
	}
	if dl, clamped := a.taskDeadline(&a2a.TaskRequest{}, received); !clamped || !dl.Equal(received.Add(DefaultMaxTaskDuration)) {
		t.Fatalf("no deadline: %v (clamped %v), want receipt + %s", dl, clamped, DefaultMaxTaskDuration)
	}
}

// New refuses a StopTimeout that is not below MaxTaskDuration.
func TestStopTimeoutMustBeBelowMaxTaskDuration(t *testing.T) {
	b := inproc.New(inproc.Options{})
	for _, o := range []Options{
		{StopTimeout: time.Second, MaxTaskDuration: time.Second},
		{MaxTaskDuration: 10 * time.Second}, // the default StopTimeout is 30s
		{StopTimeout: 26 * time.Minute},     // the default MaxTaskDuration is 25 min
	} {
		o.Card, o.Bus = a2a.AgentCard{Name: "A"}, b
		if _, err := New(o); !errors.Is(err, ErrStopTimeoutTooLong) || !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("StopTimeout %s, MaxTaskDuration %s: err = %v, want ErrStopTimeoutTooLong", o.StopTimeout, o.MaxTaskDuration, err)
		}
	}
	if _, err := New(Options{Card: a2a.AgentCard{Name: "A"}, Bus: b}); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
}
