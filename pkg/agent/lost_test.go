// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// losingBus hands its handlers a context that lose ends with
// bus.ErrDeliveryLost, as bus/rabbitmq does when a delivery's channel closes.
type losingBus struct {
	bus.Bus
	mu    sync.Mutex
	loses []context.CancelCauseFunc
}

func (b *losingBus) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	return b.Bus.Consume(ctx, queue, opts, func(ctx context.Context, d *bus.Delivery) error {
		lctx, lose := context.WithCancelCause(ctx)
		defer lose(nil)
		b.mu.Lock()
		b.loses = append(b.loses, lose)
		b.mu.Unlock()
		return h(lctx, d)
	})
}

// lose ends the context of every delivery being handled with ErrDeliveryLost.
func (b *losingBus) lose() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, lose := range b.loses {
		lose(bus.ErrDeliveryLost)
	}
}

// A task whose delivery is lost stops, sends no reply and runs again (the
// broker delivers it anew): the caller gets the second run's result, not a
// CANCELED or failed first one.
func TestLostDeliveryStopsTheTaskWithoutReply(t *testing.T) {
	w := testworld.Embedded(t)
	target := w.N("Waiter")
	b := &losingBus{Bus: w.Connect(t)}
	a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: b, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	firstStarted := make(chan struct{})
	if err := a.Handle("wait", func(ctx context.Context, task *Task) (*Result, error) {
		if runs.Add(1) == 1 {
			close(firstStarted)
			<-ctx.Done() // waits for what never comes, unless the delivery is lost
			return nil, ctx.Err()
		}
		return TextResult("second run"), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	c := callers.Start(t, w, w.N("Prober"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() { <-firstStarted; b.lose() }()
	out, err := c.Call(ctx, caller.Request{Target: target, Skill: "wait", Text: "x", Timeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil || out.Result.Text() != "second run" || runs.Load() != 2 {
		t.Fatalf("outcome %v %q after %d runs; want the second run's result", err, out.Result.Text(), runs.Load())
	}
}

// runLedger counts, per task id, the runs started and the runs in flight at
// once (the most seen).
type runLedger struct {
	mu         sync.Mutex
	starts     map[string]int
	running    map[string]int
	mostAtOnce map[string]int
}

func newRunLedger() *runLedger {
	return &runLedger{starts: map[string]int{}, running: map[string]int{}, mostAtOnce: map[string]int{}}
}

// start records a run of id beginning; the returned func records its end.
func (l *runLedger) start(id string) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.starts[id]++
	l.running[id]++
	l.mostAtOnce[id] = max(l.mostAtOnce[id], l.running[id])
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.running[id]--
	}
}

func (l *runLedger) startsOf(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starts[id]
}

func (l *runLedger) mostAtOnceOf(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mostAtOnce[id]
}

// When the broker connection of an agent drops while tasks run, each of
// those tasks runs exactly once more: the interrupted run stops, one copy
// comes back (never two, never beside the interrupted run), its caller
// gets one answer, and nothing is left in the task queue.
func TestLostConnectionRunsEachTaskOnceMore(t *testing.T) {
	t.Parallel()
	w := testworld.Real(t)
	proxy, url := testenv.ProxyURL(t, w.AMQPURL)
	target, callerName := w.N("Sleeper"), w.N("Counter")
	dial := func(url string) *rabbitmq.Bus {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitBound)
		defer cancel()
		b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: url, Exchange: w.Exchange,
			ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	agentBus, callerBus := dial(url), dial(w.AMQPURL)

	const tasks = 3
	a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: agentBus, Concurrency: 2 * tasks, StopTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runs := newRunLedger()
	var started atomic.Int32 // first runs
	if err := a.Handle("sleep", func(ctx context.Context, task *Task) (*Result, error) {
		defer runs.start(task.Request.TaskID)()
		if task.Attempt == 1 {
			started.Add(1)
		}
		select {
		case <-time.After(2500 * time.Millisecond):
			return TextResult(fmt.Sprintf("slept, attempt %d", task.Attempt)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}); err != nil {
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(context.Background()) }()
	t.Cleanup(func() { _ = a.Close() })

	r := collectReplies(t, callerBus, callerName)
	testenv.Eventually(t, "the agent's task queue declared", func() bool {
		_, err := callerBus.Inspect(t.Context(), "agent.task."+target)
		return err == nil
	})
	ids := make([]string, tasks)
	for i := range ids {
		req := &a2a.TaskRequest{TaskID: uuid.NewString(), SessionID: "s1", Caller: callerName, Target: target, Skill: "sleep",
			Message: a2a.NewTextMessage(a2a.MessageRoleUser, "x"), Deadline: time.Now().Add(time.Minute)}
		r.publish(req)
		ids[i] = req.TaskID
	}
	testenv.Eventually(t, "every task running", func() bool { return started.Load() == tasks })
	proxy.Cut() // both of the agent's connections drop; nobody else's

	for _, id := range ids {
		res, ok := r.final(id).(*a2a.TaskResult)
		if !ok {
			t.Fatalf("task %s ended with %#v, want a result", id, r.final(id))
		}
		if got := a2a.MessageText(res.Message); got != "slept, attempt 2" {
			t.Errorf("task %s answered %q, want the second attempt's result", id, got)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-runDone; err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := callerBus.Inspect(t.Context(), "agent.task."+target)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 0 {
		t.Errorf("%d messages left in the task queue after every task was answered, want none", st.Messages)
	}
	testenv.Eventually(t, "every reply consumed", func() bool {
		st, err := callerBus.Inspect(t.Context(), "agent.response."+callerName)
		return err == nil && st.Messages == 0
	})
	answers := map[string]int{}
	for _, p := range r.all() {
		switch p := p.(type) {
		case *a2a.TaskResult:
			answers[p.TaskID]++
		case *a2a.TaskError:
			answers[p.TaskID]++
		}
	}
	for _, id := range ids {
		if n, most := runs.startsOf(id), runs.mostAtOnceOf(id); n != 2 || most != 1 {
			t.Errorf("task %s: %d runs, up to %d at once; want 2 runs (the interrupted one and one more), one at a time", id, n, most)
		}
		if answers[id] != 1 {
			t.Errorf("task %s: %d answers, want 1", id, answers[id])
		}
	}
}
