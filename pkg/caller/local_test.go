// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

func TestLocalTasksStayBounded(t *testing.T) {
	l := newLocalTasks()
	now := time.Now()
	for i := range maxLocalTasks - 1 {
		l.put(&Record{TaskID: fmt.Sprint("live-", i), Deadline: now.Add(time.Minute)}, now)
	}
	l.put(&Record{TaskID: "old", Deadline: now.Add(-2 * localGrace)}, now)
	l.put(&Record{TaskID: "new", Deadline: now.Add(time.Minute)}, now)
	if _, ok := l.get("old"); ok {
		t.Fatal("a record long past its deadline survived a full cache")
	}
	if _, ok := l.get("new"); !ok {
		t.Fatal("the pruned slot was not used")
	}
	l.put(&Record{TaskID: "overflow", Deadline: now.Add(time.Minute)}, now)
	if _, ok := l.get("overflow"); ok || len(l.byID) != maxLocalTasks {
		t.Fatalf("full of live tasks: cached the overflow (%v) or grew to %d", ok, len(l.byID))
	}
	if rec, ok := l.get("live-7"); !ok || rec.TaskID != "live-7" {
		t.Fatalf("get = %+v, %v", rec, ok)
	}
	l.drop("live-7")
	if _, ok := l.get("live-7"); ok {
		t.Fatal("dropped record still there")
	}
}

// eventCounter counts the result events a caller broadcasts to its replicas.
type eventCounter struct {
	bus.Bus
	key     string
	results atomic.Int64
}

func (e *eventCounter) Publish(ctx context.Context, m bus.Message) error {
	if m.RoutingKey == e.key && m.Kind == a2a.KindTaskResult {
		e.results.Add(1)
	}
	return e.Bus.Publish(ctx, m)
}

// A replica that waits for the task itself needs no event; when the waiter
// is elsewhere, the replica that consumed the response broadcasts it.
func TestResultEventOnlyWhenTheWaiterIsElsewhere(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	w.agent("Echo", map[string]agent.Handler{"echo": echo})
	key, err := a2a.EventRoutingKey("Primary")
	if err != nil {
		t.Fatal(err)
	}
	var counter *eventCounter
	running := w.caller("Primary", true, func(o *Options) { counter = &eventCounter{Bus: o.Bus, key: key}; o.Bus = counter })
	out, err := running.Call(ctxT(t), Request{Target: "Echo", Skill: "echo", Text: "here"}, nil)
	if err != nil || out.Result.Text() != "echo: here" {
		t.Fatalf("call = %+v, %v", out, err)
	}
	if n := counter.results.Load(); n != 0 {
		t.Fatalf("%d result events broadcast for a task whose waiter is in the consuming replica", n)
	}
	elsewhere := w.caller("Primary", false) // invokes and waits, consumes nothing
	out, err = elsewhere.Call(ctxT(t), Request{Target: "Echo", Skill: "echo", Text: "there"}, nil)
	if err != nil || out.Result.Text() != "echo: there" {
		t.Fatalf("call from another replica = %+v, %v", out, err)
	}
	if n := counter.results.Load(); n != 1 {
		t.Fatalf("%d result events broadcast for a task whose waiter is in another replica, want 1", n)
	}
}
