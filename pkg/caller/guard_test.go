// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/guard"
)

func newGuard(t *testing.T, cfg guard.Config) *guard.Guard {
	t.Helper()
	g, err := guard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func withGuard(g *guard.Guard) func(*Options) { return func(o *Options) { o.Guard = g } }

// counting returns a handler that counts its runs and answers "ok".
func counting(runs *atomic.Int32) agent.Handler {
	return func(context.Context, *agent.Task) (*agent.Result, error) {
		runs.Add(1)
		return agent.TextResult("ok"), nil
	}
}

// refusal asserts err is a refusal with code whose message says each of parts.
func refusal(t *testing.T, err error, code a2a.ErrorCode, parts ...string) {
	t.Helper()
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != code || e.Retryable != code.DefaultRetryable() {
		t.Fatalf("error = %v, want %s (retryable %v)", err, code, code.DefaultRetryable())
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func TestPolicyForbidsOnTheCallerSide(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		secret, open := w.N("Secret"), w.N("Open")
		var runs atomic.Int32
		w.agent(secret, map[string]agent.Handler{"echo": counting(&runs)})
		w.agent(open, map[string]agent.Handler{"echo": counting(&runs)})
		me := w.N("Primary")
		g := newGuard(t, guard.Config{Policy: guard.Policy{Rules: []guard.Rule{{Caller: me, Deny: []string{"secret*"}}}}})
		c := w.caller(me, true, withGuard(g))
		_, err := c.Invoke(ctxT(t), Request{Target: secret, Skill: "echo", Text: "x"})
		refusal(t, err, a2a.CodeForbidden, me+" may not call "+secret, `denies target "secret*"`, "invoke "+secret+".echo")
		_, err = c.Call(ctxT(t), Request{Target: secret, Skill: "echo", Text: "x"}, nil)
		refusal(t, err, a2a.CodeForbidden)
		out, err := c.Call(ctxT(t), Request{Target: open, Skill: "echo", Text: "x"}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("allowed call = %+v, %v", out, err)
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the agents ran %d tasks, want 1: a refused call must not be published", n)
		}
		if n := g.InFlight(me); n != 0 {
			t.Fatalf("%d calls still in flight", n)
		}
	})
}

func TestPolicyForbidsOnTheAgentSide(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target := w.N("Guarded")
		var runs atomic.Int32
		policy := newGuard(t, guard.Config{Policy: guard.Policy{Rules: []guard.Rule{{Caller: "Intruder*", Deny: []string{"*"}}}}})
		w.agent(target, map[string]agent.Handler{"echo": counting(&runs)}, func(o *agent.Options) { o.Policy = policy })
		intruder := w.caller(w.N("Intruder"), true) // no guard of its own: only the agent refuses
		out, err := intruder.Call(ctxT(t), Request{Target: target, Skill: "echo", Text: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		refusal(t, out.Err(), a2a.CodeForbidden, w.N("Intruder")+" may not call "+target, `policy.rules[0] (caller "Intruder*")`)
		if out.Result.State != a2a.TaskStateRejected {
			t.Errorf("state = %s, want rejected", out.Result.State)
		}
		friend := w.caller(w.N("Friend"), true)
		if out, err := friend.Call(ctxT(t), Request{Target: target, Skill: "echo", Text: "x"}, nil); err != nil || out.Err() != nil {
			t.Fatalf("allowed call = %+v, %v", out, err)
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the agent ran %d tasks, want 1: a forbidden task must not run", n)
		}
	})
}

// A task sent with AllowNestedCalls false may not call other agents: the
// handler's call is refused by its own caller, before anything is sent.
func TestNestedCallsForbiddenByTheTask(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		mid, leaf := w.N("Mid"), w.N("Leaf")
		var leafRuns atomic.Int32
		w.agent(leaf, map[string]agent.Handler{"echo": counting(&leafRuns)})
		midCaller := w.caller(mid, true)
		sawFlag := make(chan *bool, 2)
		w.agent(mid, map[string]agent.Handler{"fwd": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			sawFlag <- task.Request.AllowNestedCalls
			out, err := midCaller.Call(ctx, Request{Target: leaf, Skill: "echo", Text: "down"}, nil)
			if err != nil {
				return nil, err
			}
			return agent.TextResult("mid+" + out.Result.Text()), out.Err()
		}})
		c := w.caller(w.N("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: mid, Skill: "fwd", Text: "go", AllowNestedCalls: new(false)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		refusal(t, out.Err(), a2a.CodeForbidden, "task "+out.TaskID+" does not allow nested calls")
		if f := <-sawFlag; f == nil || *f {
			t.Fatalf("the task arrived with AllowNestedCalls %v, want false", f)
		}
		if n := leafRuns.Load(); n != 0 {
			t.Fatalf("the leaf ran %d tasks, want none", n)
		}
		out, err = c.Call(ctxT(t), Request{Target: mid, Skill: "fwd", Text: "go"}, nil) // nil: allowed
		if err != nil || out.Err() != nil || out.Result.Text() != "mid+ok" {
			t.Fatalf("nested call allowed by default = %+v, %v", out, err)
		}
		if f := <-sawFlag; f != nil {
			t.Fatalf("AllowNestedCalls = %v, want nil when the request did not set it", *f)
		}
	})
}

func TestBusyWhenTooManyCallsAreInFlight(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target := w.N("Sleepy")
		release := make(chan struct{})
		w.agent(target, map[string]agent.Handler{"sleep": func(ctx context.Context, _ *agent.Task) (*agent.Result, error) {
			select {
			case <-release:
				return agent.TextResult("awake"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
		me := w.N("Primary")
		g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 2}})
		c := w.caller(me, true, withGuard(g))
		var ids []string
		for range 2 {
			inv, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "sleep", Text: "zz", Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, inv.TaskID)
		}
		_, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "sleep", Text: "zz"})
		refusal(t, err, a2a.CodeBusy, "already has 2 calls in flight", "retry when one of them finishes")
		_, err = c.Call(ctxT(t), Request{Target: w.N("Other"), Skill: "sleep", Text: "zz"}, nil)
		refusal(t, err, a2a.CodeBusy) // per caller, whatever the target
		close(release)
		for _, id := range ids {
			if out, err := c.Wait(ctxT(t), id, nil); err != nil || out.Err() != nil {
				t.Fatalf("wait %s = %+v, %v", id, out, err)
			}
		}
		testenv.Eventually(t, "the finished calls free their slots", func() bool { return g.InFlight(me) == 0 })
		if out, err := c.Call(ctxT(t), Request{Target: target, Skill: "sleep", Text: "zz"}, nil); err != nil || out.Err() != nil {
			t.Fatalf("call after the slots were freed = %+v, %v", out, err)
		}
	})
}

func TestRateLimitedPerTarget(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		a, b := w.N("Alpha"), w.N("Beta")
		var runs atomic.Int32
		w.agent(a, map[string]agent.Handler{"echo": counting(&runs)})
		w.agent(b, map[string]agent.Handler{"echo": counting(&runs)})
		g := newGuard(t, guard.Config{Limits: guard.Limits{Rate: 0.01, Burst: 2}}) // a token every 100s
		c := w.caller(w.N("Primary"), true, withGuard(g))
		for range 2 {
			if out, err := c.Call(ctxT(t), Request{Target: a, Skill: "echo", Text: "x"}, nil); err != nil || out.Err() != nil {
				t.Fatalf("call within the burst = %+v, %v", out, err)
			}
		}
		_, err := c.Invoke(ctxT(t), Request{Target: a, Skill: "echo", Text: "x"})
		refusal(t, err, a2a.CodeRateLimited, "to "+a+" are limited to 0.01 per second (burst 2", "retry in ")
		if out, err := c.Call(ctxT(t), Request{Target: b, Skill: "echo", Text: "x"}, nil); err != nil || out.Err() != nil {
			t.Fatalf("another target has its own bucket: %+v, %v", out, err)
		}
		if n := runs.Load(); n != 3 {
			t.Fatalf("the agents ran %d tasks, want 3", n)
		}
	})
}

// The circuit opens after consecutive failures (a timeout and an error),
// refuses at once while open, lets one probe through after the cool-down
// and closes when it succeeds.
func TestCircuitOpensAndRecovers(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		target := w.N("Flaky")
		var failing atomic.Bool
		var runs atomic.Int32
		failing.Store(true)
		w.agent(target, map[string]agent.Handler{
			"work": func(context.Context, *agent.Task) (*agent.Result, error) {
				runs.Add(1)
				if failing.Load() {
					return nil, a2a.NewError(a2a.CodeExecutionFailed, "down")
				}
				return agent.TextResult("up"), nil
			},
			"hang": func(ctx context.Context, _ *agent.Task) (*agent.Result, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		})
		g := newGuard(t, guard.Config{Limits: guard.Limits{BreakerFailures: 2, BreakerCooldown: 300 * time.Millisecond}})
		c := w.caller(w.N("Primary"), true, withGuard(g))
		call := func(skill string, timeout time.Duration) (*Outcome, error) {
			return c.Call(ctxT(t), Request{Target: target, Skill: skill, Text: "x", Timeout: timeout}, nil)
		}
		out, err := call("hang", time.Second)
		if err != nil || a2a.CodeOf(out.Err()) != a2a.CodeTimeout {
			t.Fatalf("hanging call = %+v, %v; want TIMEOUT", out, err)
		}
		out, err = call("work", 0)
		if err != nil || a2a.CodeOf(out.Err()) != a2a.CodeExecutionFailed {
			t.Fatalf("failing call = %+v, %v; want EXECUTION_FAILED", out, err)
		}
		testenv.Eventually(t, "the circuit opens after 2 failures", func() bool { return g.CircuitState(target) == "open" })
		ran := runs.Load()
		_, err = call("work", 0)
		refusal(t, err, a2a.CodeCircuitOpen, "the circuit to "+target+" is open after 2 consecutive failures", "retry in ")
		if runs.Load() != ran {
			t.Fatal("a call was sent through an open circuit")
		}

		failing.Store(false) // the agent recovers; after the cool-down one probe goes through
		testenv.Eventually(t, "the circuit half-opens after its cool-down", func() bool { return g.CircuitState(target) == "half-open" })
		out, err = call("work", 0)
		if err != nil || out.Err() != nil || out.Result.Text() != "up" {
			t.Fatalf("probe = %+v, %v", out, err)
		}
		testenv.Eventually(t, "the circuit closes after a successful probe", func() bool { return g.CircuitState(target) == "closed" })
		for range 3 {
			if out, err := call("work", 0); err != nil || out.Err() != nil {
				t.Fatalf("call after recovery = %+v, %v", out, err)
			}
		}
	})
}

// failingBus refuses to publish tasks.
type failingBus struct{ bus.Bus }

func (f failingBus) Publish(ctx context.Context, m bus.Message) error {
	if strings.HasPrefix(m.RoutingKey, "agent.task.") {
		return errors.New("broker said no")
	}
	return f.Bus.Publish(ctx, m)
}

func TestSlotFreedWhenNothingWasSent(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 1}})
	c := w.caller("Primary", false, withGuard(g), func(o *Options) { o.Bus = failingBus{o.Bus} })
	for range 3 {
		_, err := c.Invoke(ctxT(t), Request{Target: "Echo", Skill: "echo", Text: "x"})
		if err == nil || a2a.CodeOf(err) == a2a.CodeBusy || !strings.Contains(err.Error(), "broker said no") {
			t.Fatalf("invoke = %v, want the publish failure (not BUSY)", err)
		}
	}
	if n := g.InFlight("Primary"); n != 0 {
		t.Fatalf("%d calls in flight after failed publishes", n)
	}
}

// Replicas of a caller share its response queue: whichever handles an
// outcome, the replica that invoked the task frees its slot (directly, or
// from the other's event).
func TestSlotFreedWhicheverReplicaHandlesTheOutcome(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target, me := w.N("Echo"), w.N("Primary")
		w.agent(target, map[string]agent.Handler{"echo": echo})
		g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 8}})
		c := w.caller(me, true, withGuard(g))
		w.caller(me, true) // another replica consuming the same responses
		for range 8 {
			if _, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "x", Timeout: time.Minute}); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, "every slot is freed", func() bool { return g.InFlight(me) == 0 })
	})
}

// A process that invokes before its Run listens to the replicas' events
// learns, when Run starts, of the outcomes another replica handled
// meanwhile: their slots are freed then, not at their deadlines.
func TestSlotsFreedOfOutcomesHandledBeforeRun(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target, me := w.N("Echo"), w.N("Primary")
		w.agent(target, map[string]agent.Handler{"echo": echo})
		g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 8}})
		c := w.caller(me, false, withGuard(g)) // not running yet
		w.caller(me, true)                     // the replica that handles the responses
		var keys []string
		for range 3 {
			inv, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "x", Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, inv.MemoryKey)
		}
		testenv.Eventually(t, "the other replica stored every result", func() bool {
			for _, k := range keys {
				if _, err := w.mem.Get(context.Background(), k); err != nil {
					return false
				}
			}
			return true
		})
		if n := g.InFlight(me); n != 3 {
			t.Fatalf("%d calls in flight before Run, want 3", n)
		}
		go func() { _ = c.Run(context.Background()) }()
		testenv.Eventually(t, "every slot is freed once Run starts", func() bool { return g.InFlight(me) == 0 })
	})
}

// A Wait that finds the outcome stored (by a replica whose event this
// process has not seen: here it does not run) frees the slot before it
// returns, so the next call is not refused BUSY.
func TestSlotFreedWhenAWaitFindsTheOutcome(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target, me := w.N("Echo"), w.N("Primary")
		w.agent(target, map[string]agent.Handler{"echo": echo})
		g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 1}})
		c := w.caller(me, false, withGuard(g)) // hears no event: it does not run
		w.caller(me, true)                     // the replica that handles the responses
		inv, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "x", Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("wait = %+v, %v", out, err)
		}
		if n := g.InFlight(me); n != 0 {
			t.Fatalf("%d calls in flight once Wait returned the outcome, want 0", n)
		}
		if _, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "y", Timeout: time.Minute}); err != nil {
			t.Fatalf("the next call: %v", err)
		}
	})
}

// A task whose outcome this process never learns (no Run here) gives its
// slot back once it is well past its deadline.
func TestSlotFreedPastTheDeadline(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	w := wrap(t, testworld.Embedded(t))
	g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 1, BreakerFailures: 1, BreakerCooldown: time.Hour}})
	c := w.caller("Primary", false, withGuard(g))
	if _, err := c.Invoke(ctxT(t), Request{Target: "Nobody", Skill: "echo", Text: "x", Timeout: 500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Invoke(ctxT(t), Request{Target: "Nobody", Skill: "echo", Text: "x"})
	refusal(t, err, a2a.CodeBusy)
	testenv.Eventually(t, "the slot is freed past the deadline", func() bool { return g.InFlight("Primary") == 0 })
	if s := g.CircuitState("Nobody"); s != "closed" {
		t.Fatalf("an abandoned call counted as a failure: circuit %s", s)
	}
}
