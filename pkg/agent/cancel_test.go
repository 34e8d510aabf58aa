// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// queuedCancel is a world with a running caller and an agent that is not
// running yet: tasks invoked now wait in its queue.
type queuedCancel struct {
	t      *testing.T
	w      *testworld.World
	ctx    context.Context
	target string
	c      *caller.Caller

	mu  sync.Mutex
	ran []string // the tasks whose handler ran
}

func newQueuedCancel(t *testing.T, w *testworld.World) *queuedCancel {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	q := &queuedCancel{t: t, w: w, ctx: ctx, target: w.N("Sleeper")}
	c, err := caller.New(caller.Options{Name: w.N("Canceler"), Bus: w.Connect(t), Memory: w.Memory, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Run(context.Background()) }()
	t.Cleanup(func() { _ = c.Close() })
	q.c = c
	return q
}

func (q *queuedCancel) invoke() string {
	q.t.Helper()
	inv, err := q.c.Invoke(q.ctx, caller.Request{Target: q.target, Skill: "work", Text: "x", SessionID: "cancels", Timeout: 25 * time.Second})
	if err != nil {
		q.t.Fatal(err)
	}
	return inv.TaskID
}

// start runs the agent (with mem as its Memory) until the test ends.
func (q *queuedCancel) start(mem memory.Memory) {
	q.t.Helper()
	a, err := New(Options{Card: a2a.AgentCard{Name: q.target}, Bus: q.w.Connect(q.t), Memory: mem, StopTimeout: time.Second})
	if err != nil {
		q.t.Fatal(err)
	}
	_ = a.Handle("work", func(_ context.Context, task *Task) (*Result, error) {
		q.mu.Lock()
		q.ran = append(q.ran, task.Request.TaskID)
		q.mu.Unlock()
		return TextResult("done"), nil
	})
	go func() { _ = a.Run(context.Background()) }()
	q.t.Cleanup(func() { _ = a.Close() })
}

func (q *queuedCancel) wait(taskID string) *caller.Outcome {
	q.t.Helper()
	out, err := q.c.Wait(q.ctx, taskID, nil)
	if err != nil {
		q.t.Fatalf("wait for %s: %v", taskID, err)
	}
	return out
}

func (q *queuedCancel) hasRun(taskID string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Contains(q.ran, taskID)
}

// A task canceled while no instance of its agent runs (KEDA scaled to zero)
// is answered CANCELED, without running, by the instance that starts later.
// A cancel recorded under another caller's name is not a cancel.
func TestCancelOfQueuedTaskWithNoInstanceRunning(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		q := newQueuedCancel(t, w)
		canceled, forged, kept := q.invoke(), q.invoke(), q.invoke()
		if err := q.c.Cancel(q.ctx, canceled); err != nil {
			t.Fatalf("cancel with no instance running: %v", err)
		}
		addCancel(t, w.Memory, q.target, forged, "Intruder", time.Now().Add(time.Minute))
		q.start(w.Memory)

		out := q.wait(canceled)
		if a2a.CodeOf(out.Err()) != a2a.CodeCanceled || out.Result.State != a2a.TaskStateCanceled {
			t.Fatalf("canceled task: state %s, err %v; want CANCELED", out.Result.State, out.Err())
		}
		for _, id := range []string{forged, kept} {
			if out := q.wait(id); out.Err() != nil || out.Result.Text() != "done" {
				t.Fatalf("task %s: %+v, %v; want it run", id, out.Result, out.Err())
			}
		}
		if q.hasRun(canceled) {
			t.Fatal("the handler ran the canceled task")
		}
		if !q.hasRun(forged) || !q.hasRun(kept) {
			t.Fatal("the other tasks did not run")
		}
	})
}

// An agent without Memory honours only the cancels it receives while it
// runs: a task canceled before it started runs when it is dequeued.
func TestCancelOfQueuedTaskNeedsMemory(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		q := newQueuedCancel(t, w)
		id := q.invoke()
		if err := q.c.Cancel(q.ctx, id); err != nil {
			t.Fatal(err)
		}
		q.start(nil)
		if out := q.wait(id); out.Err() != nil || !q.hasRun(id) {
			t.Fatalf("without Memory: %+v, %v, ran %v; want the task run", out.Result, out.Err(), q.hasRun(id))
		}
	})
}

// addCancel records in mem that caller canceled task id of agent, until until.
func addCancel(t *testing.T, mem memory.Memory, agent, id, caller string, until time.Time) {
	t.Helper()
	index, err := memory.CancelIndex(agent)
	if err != nil {
		t.Fatal(err)
	}
	member, err := memory.CancelMember(id, caller)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.IndexAdd(context.Background(), index, member, until.UnixMilli()); err != nil {
		t.Fatal(err)
	}
}

// loadCanceled drops the expired cancels, loads at most maxLoadedCancels
// live ones and says when there are more.
func TestLoadCanceledIsBounded(t *testing.T) {
	w := testworld.Embedded(t)
	ctx := context.Background()
	index, _ := memory.CancelIndex("Busy")
	later := time.Now().Add(time.Minute).UnixMilli()
	var ops []memory.Op
	for i := range maxLoadedCancels + 5 {
		member, err := memory.CancelMember(fmt.Sprintf("t%05d", i), testCaller)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, memory.IndexAddOp(index, member, later))
	}
	if _, err := w.Memory.Batch(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	addCancel(t, w.Memory, "Busy", "expired", testCaller, time.Now().Add(-time.Second))
	addCancel(t, w.Memory, "Busy2", "other", testCaller, time.Now().Add(time.Minute)) // another agent's: not loaded
	core, logs := observer.New(zapcore.InfoLevel)
	a, err := New(Options{Card: a2a.AgentCard{Name: "Busy"}, Bus: w.Connect(t), Memory: w.Memory, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	a.loadCanceled(ctx)
	if n := len(a.running.canceled); n != maxLoadedCancels {
		t.Fatalf("%d cancels loaded, want %d", n, maxLoadedCancels)
	}
	if !a.running.wasCanceled("t00000", testCaller) || a.running.wasCanceled("t00000", "Other") ||
		a.running.wasCanceled("other", testCaller) || a.running.wasCanceled("expired", testCaller) {
		t.Fatal("wrong cancels loaded")
	}
	if logs.FilterMessage("too many recorded cancels: only some are loaded").Len() != 1 {
		t.Fatalf("no warning: %v", logs.All())
	}
	if _, found, err := w.Memory.IndexScore(ctx, index, "expired/"+testCaller); err != nil || found {
		t.Fatalf("the expired cancel is still recorded (found %v, err %v)", found, err)
	}
}

// A memory failure at start is logged; the agent runs on.
func TestLoadCanceledSurvivesMemoryFailure(t *testing.T) {
	w := testworld.Embedded(t)
	core, logs := observer.New(zapcore.InfoLevel)
	a, err := New(Options{Card: a2a.AgentCard{Name: "Busy"}, Bus: w.Connect(t), Memory: failingMemory{}, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	a.loadCanceled(context.Background())
	if logs.FilterMessage("recorded cancels not loaded: tasks canceled while no instance ran may still run").Len() != 1 {
		t.Fatalf("no warning: %v", logs.All())
	}
}

// failingMemory is a memory.Memory whose index reads fail (the others are not used).
type failingMemory struct{ memory.Memory }

func (failingMemory) IndexRange(context.Context, string, int64, int) ([]memory.IndexMember, error) {
	return nil, errors.Join(memory.ErrUnavailable, errors.New("redis down"))
}

// wasCanceled reports whether caller canceled task id before it started here.
func (r *runningTasks) wasCanceled(id, caller string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.canceledBy(id, caller)
}

// A cancel remembered before a task starts (received or loaded while it was
// queued, or while it was being started) makes start refuse the task: the
// check and the registration are one step. A cancel by another caller is no
// cancel.
func TestStartRefusesATaskCanceledWhileStarting(t *testing.T) {
	r := newRunningTasks()
	now := time.Now()
	if r.cancel("t-1", "Caller", now) {
		t.Fatal("cancel reported a running task; none runs")
	}
	if r.start(runKey{id: "t-1"}, "Caller", func(error) {}) {
		t.Error("start registered a task its caller had canceled")
	}
	if r.start(runKey{id: "t-1", turn: 2}, "Caller", func(error) {}) {
		t.Error("start registered a later turn of a task its caller had canceled")
	}
	if !r.start(runKey{id: "t-1-other"}, "Caller", func(error) {}) {
		t.Error("start refused a task nobody canceled")
	}
	r.cancel("t-2", "Someone", now)
	if !r.start(runKey{id: "t-2"}, "Caller", func(error) {}) {
		t.Error("start refused a task canceled under another caller's name")
	}
	canceled, canceledTurn := false, false
	if !r.start(runKey{id: "t-3"}, "Caller", func(error) { canceled = true }) ||
		!r.start(runKey{id: "t-3", turn: 1}, "Caller", func(error) { canceledTurn = true }) ||
		!r.cancel("t-3", "Caller", now) || !canceled || !canceledTurn {
		t.Error("a cancel after start did not reach every running turn of the task")
	}
}

// A running agent prunes its cancel index: a recorded cancel that expires
// while it runs is removed (every AnnounceInterval), a live one is kept.
func TestExpiredCancelsArePrunedWhileRunning(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		clock := testenv.NewClock()
		target := w.N("Pruner")
		addCancel(t, w.Memory, target, "soon", testCaller, clock.Now().Add(time.Minute))
		addCancel(t, w.Memory, target, "late", testCaller, clock.Now().Add(time.Hour))
		a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), Memory: w.Memory, Now: clock.Now,
			AnnounceInterval: 10 * time.Millisecond, StopTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
		testenv.Eventually(t, "the recorded cancels loaded at start", func() bool { return a.running.wasCanceled("soon", testCaller) })

		clock.Advance(2 * time.Minute)
		index, _ := memory.CancelIndex(target)
		recorded := func(id string) bool {
			_, found, err := w.Memory.IndexScore(context.Background(), index, id+"/"+testCaller)
			if err != nil {
				t.Fatal(err)
			}
			return found
		}
		testenv.Eventually(t, "the expired cancel pruned while the agent runs", func() bool { return !recorded("soon") })
		if !recorded("late") {
			t.Fatal("a live cancel was pruned")
		}
	})
}

// One round of pruning drops at most maxPrunedCancels expired cancels.
func TestPruneCanceledIsBounded(t *testing.T) {
	w := testworld.Embedded(t)
	ctx := context.Background()
	index, _ := memory.CancelIndex("Busy")
	past := time.Now().Add(-time.Minute).UnixMilli()
	var ops []memory.Op
	for i := range maxPrunedCancels + 5 {
		member, err := memory.CancelMember(fmt.Sprintf("t%05d", i), testCaller)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, memory.IndexAddOp(index, member, past))
	}
	if _, err := w.Memory.Batch(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Card: a2a.AgentCard{Name: "Busy"}, Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	a.pruneCanceled(ctx)
	left, err := w.Memory.IndexRange(ctx, index, memory.MaxIndexScore, 2*maxPrunedCancels)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 5 {
		t.Fatalf("%d expired cancels left after one round, want 5", len(left))
	}
	a.pruneCanceled(ctx)
	if left, _ := w.Memory.IndexRange(ctx, index, memory.MaxIndexScore, 10); len(left) != 0 {
		t.Fatalf("%d expired cancels left after two rounds", len(left))
	}
}
