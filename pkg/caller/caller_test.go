// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// world wraps a testworld with helpers to start callers and agents on it.
type world struct {
	*testworld.World
	t   *testing.T
	mem memory.Memory
}

func wrap(t *testing.T, tw *testworld.World) *world { return &world{World: tw, t: t, mem: tw.Memory} }

// each runs f on the embedded bus and memory and on the real servers.
func each(t *testing.T, f func(t *testing.T, w *world)) {
	testworld.Each(t, func(t *testing.T, tw *testworld.World) { f(t, wrap(t, tw)) })
}

func (w *world) caller(name string, run bool, mod ...func(*Options)) *Caller {
	w.t.Helper()
	o := Options{Name: name, Bus: w.Connect(w.t), Memory: w.mem, SweepInterval: 50 * time.Millisecond}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = c.Close() })
	if run {
		go func() {
			if err := c.Run(context.Background()); err != nil && !errors.Is(err, ErrClosed) {
				w.t.Errorf("caller Run: %v", err)
			}
		}()
	}
	return c
}

func (w *world) agent(name string, skills map[string]agent.Handler, mod ...func(*agent.Options)) *agent.Agent {
	w.t.Helper()
	o := agent.Options{Card: a2a.AgentCard{Name: name, Version: "1.0"}, Bus: w.Connect(w.t), StopTimeout: time.Second}
	for _, m := range mod {
		m(&o)
	}
	a, err := agent.New(o)
	if err != nil {
		w.t.Fatal(err)
	}
	for s, h := range skills {
		if err := a.Handle(s, h); err != nil {
			w.t.Fatal(err)
		}
	}
	go func() { _ = a.Run(context.Background()) }()
	w.t.Cleanup(func() { _ = a.Close() })
	return a
}

func echo(_ context.Context, t *agent.Task) (*agent.Result, error) {
	return agent.TextResult("echo: " + t.Text()), nil
}

func (w *world) turns(session string) []memory.Turn {
	w.t.Helper()
	turns, err := w.mem.Turns(context.Background(), session, 0, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	return turns
}

func (w *world) stored(key string) *StoredResult {
	w.t.Helper()
	var s StoredResult
	found, err := getJSON(context.Background(), w.mem, key, &s)
	if err != nil || !found {
		w.t.Fatalf("no result at %q (err=%v)", key, err)
	}
	return &s
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// statusLog records the status updates streamed to a waiting Call, and
// tells its agent's handler when the Call saw "thinking".
type statusLog struct {
	mu    sync.Mutex
	texts []string
	once  sync.Once
	seen  chan struct{} // closed when the Call saw "thinking"
}

func newStatusLog() *statusLog { return &statusLog{seen: make(chan struct{})} }

// add is the Call's onStatus.
func (l *statusLog) add(st *a2a.TaskStatus) {
	l.mu.Lock()
	defer l.mu.Unlock()
	text := a2a.MessageText(st.Message)
	l.texts = append(l.texts, text)
	if text == "thinking" {
		l.once.Do(func() { close(l.seen) })
	}
}

// thinking is a handler that reports "thinking" and, once the waiting Call
// saw it (the status streams while the task runs), answers result(task).
func (l *statusLog) thinking(result func(*agent.Task) *agent.Result) agent.Handler {
	return func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if err := task.Progress(ctx, "thinking", 0.5); err != nil {
			return nil, err
		}
		select {
		case <-l.seen:
			return result(task), nil
		case <-time.After(10 * time.Second):
			return nil, errors.New("the waiting Call never saw the status update")
		}
	}
}

// wantThinking fails t unless the Call saw "thinking".
func (l *statusLog) wantThinking(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !strings.Contains(strings.Join(l.texts, "|"), "thinking") {
		t.Fatalf("statuses seen = %q", l.texts)
	}
}

func TestCallStoresNotifiesAndStreams(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		statuses := newStatusLog()
		w.agent(n("Echo"), map[string]agent.Handler{"echo": statuses.thinking(func(task *agent.Task) *agent.Result {
			return &agent.Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "echo: "+task.Text()),
				Artifacts: []*a2a.Artifact{{ID: "a1", Name: "data", Parts: []*a2a.Part{a2a.NewDataPart(map[string]any{"n": 1})}}}}
		})})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", SessionID: "s1"}, statuses.add)
		if err != nil {
			t.Fatal(err)
		}
		if out.Err() != nil || out.Result.Text() != "echo: hi" || len(out.Result.Artifacts) != 1 {
			t.Fatalf("outcome = %+v", out.Result)
		}
		want := fmt.Sprintf("session/s1/a2a/%s/%s/result", n("Echo"), out.TaskID)
		if out.MemoryKey != want {
			t.Fatalf("memory key = %q, want %q", out.MemoryKey, want)
		}
		ttl, err := w.mem.TTL(context.Background(), out.MemoryKey)
		if err != nil || ttl <= 59*time.Minute || ttl > 60*time.Minute {
			t.Fatalf("result TTL = %v, %v; want about 60m", ttl, err)
		}
		turns := w.turns("s1")
		if len(turns) != 1 || !strings.Contains(turns[0].Content, "[Agent '"+n("Echo")+"' completed task "+out.TaskID+" (state=completed)]: echo: hi") ||
			!strings.Contains(turns[0].Content, "get_from_working_memory with key '"+want+"'") || turns[0].Meta[MetaTaskID] != out.TaskID ||
			turns[0].Meta[MetaOutcome] != OutcomeAnswer {
			t.Fatalf("turns = %+v", turns)
		}
		statuses.wantThinking(t)
	})
}

func TestErrorOutcome(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"fail": func(context.Context, *agent.Task) (*agent.Result, error) {
			return nil, errors.New("no luck")
		}})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "fail", Text: "x", SessionID: "s2"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a2a.CodeOf(out.Err()) != a2a.CodeExecutionFailed || !strings.Contains(out.Result.Text(), "no luck") {
			t.Fatalf("outcome = %+v", out.Result)
		}
		turns := w.turns("s2")
		if len(turns) != 1 || !strings.Contains(turns[0].Content, "failed task") || !strings.Contains(turns[0].Content, "code=EXECUTION_FAILED") {
			t.Fatalf("turns = %+v", turns)
		}
	})
}

// publishAs publishes a payload to the caller's response queue, as an agent
// would, times times (default once): the same message, as the broker
// redelivers it.
func publishAs(t *testing.T, b bus.Bus, caller string, p a2a.Payload, times ...int) {
	t.Helper()
	env, err := a2a.Codec{}.Encode(p, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := a2a.ResponseRoutingKey(caller)
	n := 1
	if len(times) > 0 {
		n = times[0]
	}
	for range n {
		if err := b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: key}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRedeliveredResponseNotifiesOnce(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		log, finished, _ := outcomeLog()
		c := w.caller(n("Primary"), true, func(o *Options) { o.Logger = log })
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Offline"), Skill: "echo", Text: "x", SessionID: "s3"})
		if err != nil {
			t.Fatal(err)
		}
		res := &a2a.TaskResult{TaskID: inv.TaskID, Agent: n("Offline"), State: a2a.TaskStateCompleted, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "done"), Time: time.Now()}
		b := w.Connect(t)
		publishAs(t, b, n("Primary"), res, 2) // the same message delivered twice
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Result.Text() != "done" {
			t.Fatalf("wait = %+v, %v", out, err)
		}
		testenv.Eventually(t, "the duplicate handled", func() bool { return finished(inv.TaskID) >= 2 })
		if turns := w.turns("s3"); len(turns) != 1 {
			t.Fatalf("%d notification turns, want 1: %+v", len(turns), turns)
		}
	})
}

func TestTimeoutThenLateResult(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		n := w.N
		c := w.caller(n("Primary"), true)
		// A running instance of the target receives the cancel.
		cancels := make(chan string, 1)
		cb := w.Connect(t)
		cancelKey, _ := a2a.CancelRoutingKey(n("Slow"))
		spec, _ := bus.InstanceQueue(n("Slow"), "probe", cancelKey)
		if err := cb.Declare(context.Background(), spec); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = cb.Consume(context.Background(), spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
				cancels <- d.CorrelationID
				return nil
			})
		}()
		start := time.Now()
		// A second leaves room, on a loaded machine, for the first publish's
		// declarations before the deadline; the task still sleeps far longer.
		const timeout = time.Second
		out, err := c.Call(ctxT(t), Request{Target: n("Slow"), Skill: "sleep", Text: "5000", SessionID: "s4", Timeout: timeout}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a2a.CodeOf(out.Err()) != a2a.CodeTimeout {
			t.Fatalf("outcome = %+v", out.Result)
		}
		if time.Since(start) < timeout {
			t.Fatal("timed out before the deadline")
		}
		select {
		case id := <-cancels:
			if id != out.TaskID {
				t.Fatalf("cancel for %q, want %q", id, out.TaskID)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no cancel sent after the timeout")
		}
		// The real answer arrives late: stored over the TIMEOUT and notified as late.
		publishAs(t, w.Connect(t), n("Primary"), &a2a.TaskResult{TaskID: out.TaskID, Agent: n("Slow"), State: a2a.TaskStateCompleted,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "finally"), Time: time.Now()})
		testenv.Eventually(t, "the late result notified", func() bool { return len(w.turns("s4")) >= 2 })
		turns := w.turns("s4")
		if len(turns) != 2 || !strings.Contains(turns[0].Content, "did not answer") || !strings.Contains(turns[1].Content, "late") {
			t.Fatalf("turns = %+v", turns)
		}
		if turns[0].Meta[MetaOutcome] != OutcomeSwept || turns[1].Meta[MetaOutcome] != OutcomeLate {
			t.Fatalf("notification outcomes %q, %q; want %q, %q", turns[0].Meta[MetaOutcome], turns[1].Meta[MetaOutcome], OutcomeSwept, OutcomeLate)
		}
		if s := w.stored(out.MemoryKey); !s.Late || s.Text() != "finally" {
			t.Fatalf("stored = %+v", s)
		}
	})
}

// An answer well before its deadline claims the task in the batch that
// stores it: a sweep that comes later (a replica whose clock runs ahead)
// finds it claimed and neither times it out nor notifies a TIMEOUT.
func TestEarlyResultClaimsTheTask(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		echoName := w.N("Echo")
		w.agent(echoName, map[string]agent.Handler{"echo": echo})
		c := w.caller(w.N("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: echoName, Skill: "echo", Text: "on time", SessionID: "s-early", Timeout: time.Minute}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("call = %+v, %v", out, err)
		}
		if err := c.timeout(ctxT(t), out.TaskID); err != nil {
			t.Fatalf("sweep of a finished task: %v", err)
		}
		if turns := w.turns("s-early"); len(turns) != 1 || strings.Contains(turns[0].Content, "did not answer") {
			t.Fatalf("turns = %+v, want only the completion", turns)
		}
		if s := w.stored(out.MemoryKey); s.Error != nil || s.Late || s.Text() != "echo: on time" {
			t.Fatalf("stored = %+v", s)
		}
	})
}

func TestParallelTasksKeepSeparateResults(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		echoName := w.N("Echo")
		w.agent(echoName, map[string]agent.Handler{"echo": echo})
		c := w.caller(w.N("Primary"), true)
		const n = 20
		var wg sync.WaitGroup
		keys := make(chan string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := c.Call(ctxT(t), Request{Target: echoName, Skill: "echo", Text: fmt.Sprint(i), SessionID: "par"}, nil)
				if err != nil || out.Result.Text() != fmt.Sprintf("echo: %d", i) {
					t.Errorf("call %d: %+v, %v", i, out, err)
					return
				}
				keys <- out.MemoryKey
			}()
		}
		wg.Wait()
		close(keys)
		seen := map[string]bool{}
		for k := range keys {
			seen[k] = true
		}
		stored, err := w.mem.List(context.Background(), "session/par/a2a/"+echoName+"/")
		if len(seen) != n || err != nil || len(stored) != n {
			t.Fatalf("%d distinct keys, %d stored (%v)", len(seen), len(stored), err)
		}
		if turns := w.turns("par"); len(turns) != n {
			t.Fatalf("%d notifications, want %d", len(turns), n)
		}
	})
}

func TestAnotherReplicaHandlesTheResponse(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
		w.caller(n("Primary"), true)             // consumes every response
		waiting := w.caller(n("Primary"), false) // only invokes and waits
		out, err := waiting.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "via replica"}, nil)
		if err != nil || out.Result.Text() != "echo: via replica" {
			t.Fatalf("call = %+v, %v", out, err)
		}
	})
}

func TestRestartedCallerLosesNothing(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		first := w.caller(n("Primary"), true)
		inv, err := first.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "later", SessionID: "s5"})
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		// The agent answers while no caller runs: its Close returns once the
		// task it ran is answered.
		ran := make(chan struct{})
		var once sync.Once
		a := w.agent(n("Echo"), map[string]agent.Handler{"echo": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			defer once.Do(func() { close(ran) })
			return echo(ctx, task)
		}})
		select {
		case <-ran:
		case <-ctxT(t).Done():
			t.Fatal("the agent did not run the task")
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		second := w.caller(n("Primary"), true)
		out, err := second.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Result.Text() != "echo: later" {
			t.Fatalf("wait = %+v, %v", out, err)
		}
		if turns := w.turns("s5"); len(turns) != 1 {
			t.Fatalf("turns = %+v", turns)
		}
	})
}

func TestMemoryOutageDelaysButLosesNothing(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		n := w.N
		flaky := &flakyMemory{Memory: w.mem, fail: 6}
		w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
		c := w.caller(n("Primary"), true, func(o *Options) { o.Memory = flaky })
		out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "persist", SessionID: "s6"}, nil)
		if err != nil || out.Result.Text() != "echo: persist" {
			t.Fatalf("call = %+v, %v", out, err)
		}
		if n := flaky.left(); n != 0 {
			t.Fatalf("outage not exercised: %d failures left", n)
		}
	})
}

func TestInvalidRequests(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		c := w.caller(n("Primary"), false)
		cases := []struct {
			name  string
			req   Request
			field string
		}{
			{"target", Request{Target: "a.b", Skill: "echo", Text: "x"}, "target"},
			{"skill", Request{Target: n("Echo"), Skill: "", Text: "x"}, "skill"},
			{"session", Request{Target: n("Echo"), Skill: "echo", Text: "x", SessionID: "../x"}, "sessionId"},
			{"empty", Request{Target: n("Echo"), Skill: "echo"}, "text"},
			{"input", Request{Target: n("Echo"), Skill: "echo", Input: json.RawMessage(`{`)}, "input"},
			{"timeout", Request{Target: n("Echo"), Skill: "echo", Text: "x", Timeout: -time.Second}, "timeout"},
			{"priority", Request{Target: n("Echo"), Skill: "echo", Text: "x", Priority: "urgent"}, "priority"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := c.Invoke(context.Background(), tc.req)
				if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), tc.field) {
					t.Fatalf("err = %v, want ErrInvalidRequest naming %q", err, tc.field)
				}
			})
		}
		if _, err := c.Wait(context.Background(), "nope", nil); !errors.Is(err, ErrUnknownTask) {
			t.Fatalf("wait unknown: %v", err)
		}
	})
}

// A task in the pending index whose record has expired (its caller died
// long ago) is dropped from the index by the next sweep, with nothing to
// time out.
func TestSweepDropsTasksWithoutRecord(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		c := w.caller(w.N("Primary"), false)
		ctx := ctxT(t)
		ghost := uuid.NewString()
		if err := w.mem.IndexAdd(ctx, mustPendingIndex(t, c.Name()), ghost, time.Now().Add(-time.Hour).UnixMilli()); err != nil {
			t.Fatal(err)
		}
		if err := c.sweep(ctx); err != nil {
			t.Fatalf("sweep: %v", err)
		}
		if _, found, err := w.mem.IndexScore(ctx, mustPendingIndex(t, c.Name()), ghost); err != nil || found {
			t.Fatalf("ghost task still pending (found %v, err %v)", found, err)
		}
	})
}
