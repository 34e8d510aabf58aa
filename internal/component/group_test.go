// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package component

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

// part runs until its context ends; ev records when its run returns and
// when it closes.
func part(ev *testenv.Events, name string) (func(context.Context) error, func() error) {
	return func(ctx context.Context) error {
			<-ctx.Done()
			time.Sleep(5 * time.Millisecond) // a slow stop: a later stage must still wait for it
			ev.Add(name + " ran")
			return ctx.Err()
		}, func() error {
			ev.Add(name + " closed")
			return nil
		}
}

func TestGroupStopsStageByStage(t *testing.T) {
	var rec testenv.Events
	g := NewGroup()
	// Added out of order: the stage decides, not the order of adding.
	for _, p := range []struct {
		stage int
		name  string
	}{{2, "directory"}, {0, "agent"}, {1, "caller"}, {0, "agent2"}} {
		run, closeFn := part(&rec, p.name)
		if err := g.Add(p.stage, p.name, run, closeFn); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.Start(ctx)
	cancel() // Start's context ending stops nothing by itself
	time.Sleep(20 * time.Millisecond)
	if ev := rec.List(); len(ev) != 0 {
		t.Fatalf("parts stopped when Start's context ended: %v", ev)
	}
	if err := g.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	ev := rec.List()
	pos := map[string]int{}
	for i, e := range ev {
		pos[e] = i
	}
	if len(ev) != 8 {
		t.Fatalf("events %v", ev)
	}
	for _, name := range []string{"agent", "agent2", "caller", "directory"} {
		if pos[name+" ran"] > pos[name+" closed"] {
			t.Errorf("%s closed before its run returned: %v", name, ev)
		}
	}
	for _, a := range []string{"agent", "agent2"} {
		if pos[a+" closed"] > pos["caller ran"] {
			t.Errorf("caller stopped before %s was done: %v", a, ev)
		}
	}
	if pos["caller closed"] > pos["directory ran"] {
		t.Errorf("directory stopped before the caller was done: %v", ev)
	}
	if err := g.Stop(time.Second); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if err := g.Add(0, "late", nil, nil); !errors.Is(err, ErrStopping) {
		t.Fatalf("add after stop: %v", err)
	}
}

func TestGroupRunStopsWhenAPartReturnsOnItsOwn(t *testing.T) {
	var rec testenv.Events
	g := NewGroup()
	boom := errors.New("boom")
	_ = g.Add(0, "failing", func(context.Context) error { return boom }, nil)
	run, closeFn := part(&rec, "other")
	_ = g.Add(1, "other", run, closeFn)
	done := make(chan error, 1)
	go func() { done <- g.Run(context.Background(), time.Second) }()
	select {
	case err := <-done:
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "failing: boom") {
			t.Fatalf("run: %v, want the failing part's error named", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop when a part returned on its own")
	}
	if ev := rec.List(); len(ev) != 2 {
		t.Fatalf("the other part was not stopped: %v", ev)
	}
	select {
	case <-g.Exited():
	default:
		t.Fatal("Exited not closed")
	}
}

func TestGroupCleanEndOnItsOwnIsNoError(t *testing.T) {
	g := NewGroup()
	_ = g.Add(0, "ephemeral", func(context.Context) error { return nil }, nil)
	if err := g.Run(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestGroupStopReportsOverrunsAndErrors(t *testing.T) {
	g := NewGroup()
	release := make(chan struct{})
	defer close(release)
	closed := false
	_ = g.Add(0, "stuck", func(context.Context) error { <-release; return nil }, func() error { closed = true; return nil })
	_ = g.Add(1, "bad close", nil, func() error { return errors.New("flush failed") })
	_ = g.Add(1, "bad stop", func(ctx context.Context) error { <-ctx.Done(); return errors.New("drain failed") }, nil)
	g.Start(context.Background())
	err := g.Stop(20 * time.Millisecond)
	for _, want := range []string{"stuck: stop: run did not return within 20ms", "bad close: close: flush failed", "bad stop: stop: drain failed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("stop: %v, want it to contain %q", err, want)
		}
	}
	if !closed {
		t.Error("a part that overran its bound was not closed")
	}
}

func TestGroupAddAfterStartRunsAtOnce(t *testing.T) {
	g := NewGroup()
	g.Start(context.Background())
	started := make(chan struct{})
	_ = g.Add(0, "late", func(ctx context.Context) error { close(started); <-ctx.Done(); return nil }, nil)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("a part added after Start did not run")
	}
	if err := g.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestGroupStopBeforeStartClosesWithoutRunning(t *testing.T) {
	g := NewGroup()
	ran, closed := false, false
	_ = g.Add(0, "never", func(context.Context) error { ran = true; return nil }, func() error { closed = true; return nil })
	done := make(chan error, 1)
	go func() { done <- g.Stop(0) }()
	select {
	case err := <-done:
		if err != nil || ran || !closed {
			t.Fatalf("stop: %v ran=%v closed=%v", err, ran, closed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop of a group never started hung")
	}
}
