// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// The tests of this file show that each source by which an outcome reaches
// a waiter (see the package doc) is needed: each fails if its source is
// taken away.

// respondingElsewhere is the bus of a running replica whose response
// consumer gets nothing, as when another replica takes every response; its
// event consumer runs as usual.
type respondingElsewhere struct{ bus.Bus }

func (b respondingElsewhere) Consume(ctx context.Context, queue string, o bus.ConsumeOptions, h bus.Handler) error {
	if strings.HasPrefix(queue, "agent.response.") {
		<-ctx.Done()
		return nil
	}
	return b.Bus.Consume(ctx, queue, o, h)
}

// waiting reports whether c has a waiter of task id.
func waiting(c *Caller, id string) bool {
	c.waiters.mu.Lock()
	defer c.waiters.mu.Unlock()
	return len(c.waiters.byID[id]) > 0
}

// The status updates of a task whose responses another replica consumes
// reach the waiting Call only by that replica's events: they are not stored.
func TestStatusReachesTheWaiterThroughAnotherReplica(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		statuses := newStatusLog()
		w.agent(n("Echo"), map[string]agent.Handler{"echo": statuses.thinking(func(task *agent.Task) *agent.Result {
			return agent.TextResult("echo: " + task.Text())
		})})
		w.caller(n("Primary"), true) // consumes every response
		waiting := w.caller(n("Primary"), true, func(o *Options) { o.Bus = respondingElsewhere{o.Bus} })
		events, err := a2a.InstanceQueue(n("Primary"), waiting.opts.InstanceID)
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "the waiting replica's event queue is declared", func() bool {
			waiting.declMu.Lock()
			defer waiting.declMu.Unlock()
			return waiting.declared[events]
		})
		out, err := waiting.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi"}, statuses.add)
		if err != nil {
			t.Fatal(err)
		}
		if out.Err() != nil || out.Result.Text() != "echo: hi" {
			t.Fatalf("outcome = %+v: %v", out.Result, out.Err())
		}
		statuses.wantThinking(t)
	})
}

// A replica that stores an outcome while it waits for the task itself
// broadcasts no event: a second waiter, in another replica, learns the
// outcome by polling working memory.
func TestSecondWaiterElsewhereFindsTheOutcomeByPolling(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		release := make(chan struct{})
		w.agent(n("Echo"), map[string]agent.Handler{"echo": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			select {
			case <-release:
				return echo(ctx, task)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
		key, err := a2a.EventRoutingKey(n("Primary"))
		if err != nil {
			t.Fatal(err)
		}
		var counter *eventCounter
		consuming := w.caller(n("Primary"), true, func(o *Options) { counter = &eventCounter{Bus: o.Bus, key: key}; o.Bus = counter })
		elsewhere := w.caller(n("Primary"), true, func(o *Options) { o.Bus = respondingElsewhere{o.Bus} })
		inv, err := elsewhere.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "twice", Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		outs := make(chan *Outcome, 2)
		for _, c := range []*Caller{consuming, elsewhere} {
			go func() {
				out, err := c.Wait(ctxT(t), inv.TaskID, nil)
				if err != nil {
					t.Errorf("wait: %v", err)
				}
				outs <- out
			}()
		}
		testenv.Eventually(t, "both replicas wait", func() bool {
			return waiting(consuming, inv.TaskID) && waiting(elsewhere, inv.TaskID)
		})
		close(release)
		for range 2 {
			if out := <-outs; out == nil || out.Result.Text() != "echo: twice" {
				t.Fatalf("outcome = %+v", out)
			}
		}
		if n := counter.results.Load(); n != 0 {
			t.Fatalf("%d result events broadcast by a replica that had its own waiter", n)
		}
	})
}
