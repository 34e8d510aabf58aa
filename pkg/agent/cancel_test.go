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
func (q *queuedCancel) start(mem memory.Store) {
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
// A marker left under another caller's name is not a cancel.
func TestCancelOfQueuedTaskWithNoInstanceRunning(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		q := newQueuedCancel(t, w)
		canceled, forged, kept := q.invoke(), q.invoke(), q.invoke()
		if err := q.c.Cancel(q.ctx, canceled); err != nil {
			t.Fatalf("cancel with no instance running: %v", err)
		}
		key, err := memory.CancelKey(q.target, forged)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Memory.Set(q.ctx, key, []byte("Intruder"), time.Minute); err != nil {
			t.Fatal(err)
		}
		q.start(w.Memory)

		out := q.wait(canceled)
		if a2a.CodeOf(out.Err()) != a2a.CodeCanceled || out.Result.State != a2a.StateCanceled {
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

// loadCanceled loads at most maxLoadedCancels markers and says so.
func TestLoadCanceledIsBounded(t *testing.T) {
	w := testworld.Embedded(t)
	ctx := context.Background()
	for i := range maxLoadedCancels + 5 {
		key, err := memory.CancelKey("Busy", fmt.Sprintf("t%05d", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Memory.Set(ctx, key, []byte(testCaller), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	// Another agent's marker is not loaded.
	if err := w.Memory.Set(ctx, "a2a/canceled/Busy2/other", []byte(testCaller), time.Minute); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	a, err := New(Options{Card: a2a.AgentCard{Name: "Busy"}, Bus: w.Connect(t), Memory: w.Memory, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	a.loadCanceled(ctx)
	if n := len(a.running.canceled); n != maxLoadedCancels {
		t.Fatalf("%d cancels loaded, want %d", n, maxLoadedCancels)
	}
	if !a.running.wasCanceled("t00000", testCaller) || a.running.wasCanceled("t00000", "Other") || a.running.wasCanceled("other", testCaller) {
		t.Fatal("wrong cancels loaded")
	}
	if logs.FilterMessage("too many cancel markers: only some are loaded").Len() != 1 {
		t.Fatalf("no warning: %v", logs.All())
	}
}

// A memory failure at start is logged; the agent runs on.
func TestLoadCanceledSurvivesMemoryFailure(t *testing.T) {
	w := testworld.Embedded(t)
	core, logs := observer.New(zapcore.InfoLevel)
	a, err := New(Options{Card: a2a.AgentCard{Name: "Busy"}, Bus: w.Connect(t), Memory: failingStore{}, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	a.loadCanceled(context.Background())
	if logs.FilterMessage("cancel markers not loaded: tasks canceled while no instance ran may still run").Len() != 1 {
		t.Fatalf("no warning: %v", logs.All())
	}
}

// failingStore is a memory.Store whose every call fails.
type failingStore struct{ memory.Store }

func (failingStore) List(context.Context, string) ([]string, error) {
	return nil, errors.Join(memory.ErrUnavailable, errors.New("redis down"))
}
