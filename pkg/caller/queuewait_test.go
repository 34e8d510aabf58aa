// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// A cold start longer than the run time: a one-shot agent starts after the
// call's timeout has passed (a KEDA job pulling its image), takes the task
// within its wait bound, and completes it. Without the wait bound the same
// call would have been TIMEOUT before the agent started.
func TestColdStartCompletesWithinTheWait(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		const run, coldStart = 1500 * time.Millisecond, 2 * time.Second
		c := w.caller(w.N("Cli"), true)
		target := w.N("Job")
		called := time.Now()
		inv, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "hi", Timeout: run, WaitTimeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if inv.StartBy.IsZero() || !inv.Deadline.Equal(inv.StartBy.Add(run)) {
			t.Fatalf("invocation startBy %v, deadline %v: want the deadline the run time after startBy", inv.StartBy, inv.Deadline)
		}
		time.Sleep(coldStart) // the job's cold start, longer than the run time
		took := make(chan time.Duration, 1)
		w.agent(target, map[string]agent.Handler{"echo": func(ctx context.Context, tk *agent.Task) (*agent.Result, error) {
			took <- time.Since(called)
			dl, _ := ctx.Deadline()
			if left := time.Until(dl); left > run {
				t.Errorf("run deadline %s away, want at most the run time %s from the take", left, run)
			}
			return echo(ctx, tk)
		}}, func(o *agent.Options) { o.Ephemeral, o.MaxTasks = true, 1 })

		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Result.Error != nil || a2a.MessageText(out.Result.Message) != "echo: hi" {
			t.Fatalf("outcome %+v (error %+v), want the echo", out.Result, out.Result.Error)
		}
		if d := <-took; d < run {
			t.Fatalf("taken %s after the call, want after the run time %s (a cold start)", d, run)
		}
	})
}

// The sweeper tells the two ends apart: a task no agent was heard to take
// within its wait ends EXPIRED_IN_QUEUE (status TIMEOUT) in the result, the
// notification and the call history, without waiting for the run time; one
// an agent took (its take notice arrived) and never answered ends TIMEOUT
// at its deadline; one without a wait bound (the one deadline) ends TIMEOUT
// as before.
func TestSweeperTellsWaitFromRun(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		c := w.caller(w.N("Cli"), true, func(o *Options) { o.TakeGrace = 200 * time.Millisecond })

		// Nobody ever takes it.
		nobody := w.N("Nobody")
		out, err := c.Call(ctxT(t), Request{Target: nobody, Skill: "echo", Text: "hi", Timeout: 10 * time.Second, WaitTimeout: time.Second}, nil) // a second: under load, recording and publishing took over 300 ms
		if err != nil {
			t.Fatal(err)
		}
		if e := out.Result.Error; e == nil || e.Code != a2a.CodeExpiredInQueue || out.Result.Status != a2a.StatusTimeout ||
			!strings.Contains(e.Message, "no agent took the task from agent.task."+nobody) {
			t.Fatalf("outcome %+v (error %+v), want EXPIRED_IN_QUEUE with status TIMEOUT", out.Result, out.Result.Error)
		}
		if time.Now().After(out.Deadline) {
			t.Errorf("expired at %v, after the deadline %v: the sweeper should not wait for the run time", time.Now(), out.Deadline)
		}
		var notified bool
		for _, turn := range w.turns(out.SessionID) {
			notified = notified || strings.Contains(turn.Content, "EXPIRED_IN_QUEUE")
		}
		hist, err := History(ctxT(t), w.mem, out.SessionID)
		if err != nil || len(hist) != 1 || hist[0].Code != a2a.CodeExpiredInQueue || hist[0].Status != string(a2a.StatusTimeout) {
			t.Fatalf("history %+v (%v), want one EXPIRED_IN_QUEUE entry with status TIMEOUT", hist, err)
		}
		if !notified {
			t.Fatalf("no notification names EXPIRED_IN_QUEUE: %+v", w.turns(out.SessionID))
		}

		// An agent takes it, says so, and dies without an answer.
		silent := w.N("Silent")
		takeSilently(t, w, silent)
		out, err = c.Call(ctxT(t), Request{Target: silent, Skill: "echo", Text: "hi", Timeout: 700 * time.Millisecond, WaitTimeout: 10 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e := out.Result.Error; e == nil || e.Code != a2a.CodeTimeout || !strings.Contains(e.Message, "run time of 700ms after it took the task") {
			t.Fatalf("outcome %+v (error %+v), want TIMEOUT at the run time", out.Result, out.Result.Error)
		}

		// No wait bound: the one deadline, TIMEOUT.
		out, err = c.Call(ctxT(t), Request{Target: nobody, Skill: "echo", Text: "hi", Timeout: time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e := out.Result.Error; !out.StartBy.IsZero() || e == nil || e.Code != a2a.CodeTimeout {
			t.Fatalf("without a wait bound: startBy %v, error %+v, want TIMEOUT", out.StartBy, e)
		}
	})
}

// takeSilently consumes target's task queue as an agent that sends the take
// notice of every task and then never answers (it died).
func takeSilently(t *testing.T, w *world, target string) {
	t.Helper()
	b := w.Connect(t)
	spec, err := bus.TaskQueue(target)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var codec a2a.Codec
	go func() {
		defer close(done)
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(ctx context.Context, d *bus.Delivery) error {
			p, err := codec.Decode(d.Envelope)
			if err != nil {
				return d.Ack()
			}
			req := p.(*a2a.TaskRequest)
			env, err := codec.Encode(&a2a.TaskStatus{TaskID: req.TaskID, Agent: target, State: a2a.TaskStateWorking, Time: time.Now()}, a2a.Trace{})
			if err == nil {
				key, _ := a2a.ResponseRoutingKey(req.Caller)
				_ = b.Publish(ctx, bus.Message{Envelope: env, RoutingKey: key})
			}
			return d.Ack()
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// The target's own wait bound (a resolver's WaitBound: the directory's
// well-known agents) applies when the call names none; the call's own wins;
// MaxWait clamps both; a negative one is refused.
func TestWaitBoundPerTarget(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	c := w.caller("Cli", false, func(o *Options) {
		o.Resolver = waitResolver{"Keda": 10 * time.Minute}
		o.DefaultWait, o.MaxWait = time.Second, 20*time.Minute
	})
	for _, tc := range []struct {
		target string
		wait   time.Duration
		want   time.Duration
	}{
		{"Keda", 0, 10 * time.Minute},
		{"Keda", 2 * time.Minute, 2 * time.Minute},
		{"Running", 0, time.Second},
		{"Keda", time.Hour, 20 * time.Minute},
	} {
		tr, rec, err := c.buildRequest(context.Background(), Request{Target: tc.target, Skill: "s", Text: "x", Timeout: 30 * time.Second, WaitTimeout: tc.wait})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.StartBy.Sub(tr.CreatedAt); got != tc.want || tr.RunTimeout() != 30*time.Second || !rec.StartBy.Equal(tr.StartBy) {
			t.Errorf("%s wait %s: startBy %s after creation (run %s), want %s", tc.target, tc.wait, got, tr.RunTimeout(), tc.want)
		}
	}
	if _, _, err := c.buildRequest(context.Background(), Request{Target: "Keda", Skill: "s", Text: "x", WaitTimeout: -time.Second}); err == nil {
		t.Error("a negative wait bound was accepted")
	}
}

type waitResolver map[string]time.Duration

func (r waitResolver) Resolve(_ context.Context, agent, _ string) (string, error) { return agent, nil }
func (waitResolver) InputSchema(string, string) (json.RawMessage, bool)           { return nil, false }
func (r waitResolver) WaitBound(agent string) (time.Duration, bool) {
	d, ok := r[agent]
	return d, ok
}

// A later turn of a task with a wait bound may wait as long to be taken
// (its agent may have to start again), and runs for the turn's timeout
// from the take.
func TestLaterTurnKeepsTheWait(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		type seen struct {
			startBy time.Time
			left    time.Duration
		}
		later := make(chan seen, 1)
		w.agent(w.N("Asker"), map[string]agent.Handler{"find": func(ctx context.Context, tk *agent.Task) (*agent.Result, error) {
			if tk.Turn() == 0 {
				return agent.Ask("which edition?"), nil
			}
			dl, _ := ctx.Deadline()
			later <- seen{startBy: tk.Request.StartBy, left: time.Until(dl)}
			return agent.TextResult("found"), nil
		}})
		c := w.caller(w.N("Cli"), true)
		out, err := c.Call(ctxT(t), Request{Target: w.N("Asker"), Skill: "find", Text: "x", SessionID: "s-wait", WaitTimeout: time.Minute}, nil)
		if err != nil || !out.WaitingForInput() {
			t.Fatalf("turn 0: %+v, %v; want the question", out, err)
		}
		final, err := c.Continue(ctxT(t), Reply{TaskID: out.TaskID, Text: "1", Timeout: 5 * time.Second}, nil)
		if err != nil || final.Result.Text() != "found" {
			t.Fatalf("Continue = %+v, %v", final, err)
		}
		s := <-later
		if s.startBy.IsZero() || s.left > 5*time.Second {
			t.Fatalf("later turn: startBy %v, %s left to run; want a wait bound and at most the turn's 5s from the take", s.startBy, s.left)
		}
	})
}
