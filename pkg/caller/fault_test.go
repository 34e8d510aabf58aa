// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
)

// TestFaultRedisPausedWhileResultArrives pauses Redis writes while the
// agent's result reaches the caller: the response handler retries, the result
// is stored and notified once after Redis is back, and Call returns it.
func TestFaultRedisPausedWhileResultArrives(t *testing.T) {
	testenv.NeedFaults(t)
	w := wrap(t, testworld.Real(t))
	opts, err := goredis.ParseURL(w.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	defer admin.Close()

	const pause = 3 * time.Second
	paused := make(chan struct{})
	w.agent(w.N("Echo"), map[string]agent.Handler{"echo": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if err := admin.Do(ctx, "CLIENT", "PAUSE", pause.Milliseconds(), "WRITE").Err(); err != nil {
			return nil, err
		}
		close(paused)
		return agent.TextResult("survived: " + task.Text()), nil
	}})
	c := w.caller(w.N("Primary"), true)
	start := time.Now()
	out, err := c.Call(ctxT(t), Request{Target: w.N("Echo"), Skill: "echo", Text: "pause", SessionID: "fault1", Timeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-paused
	if out.Result.Text() != "survived: pause" {
		t.Fatalf("outcome = %+v", out.Result)
	}
	if time.Since(start) < pause/2 {
		t.Fatalf("the result was stored while Redis writes were paused (%s)", time.Since(start))
	}
	if turns := w.turns("fault1"); len(turns) != 1 {
		t.Fatalf("%d notification turns, want 1", len(turns))
	}
}

// TestFaultBrokerLostWhileTheAgentAnswers closes every broker connection —
// or restarts the broker — while the agent's handler runs. The delivery is
// lost with its connection: the interrupted run replies nothing, the broker
// puts the request back, and it runs exactly once more; the caller,
// reconnected too, returns that run's result and stores and notifies it
// once.
func TestFaultBrokerLostWhileTheAgentAnswers(t *testing.T) {
	testenv.NeedFaults(t)
	testenv.NeedRabbitmqctl(t)
	faults := map[string]func(t *testing.T) error{
		"connections closed": func(t *testing.T) error {
			return testenv.Rabbitmqctl(t, "close_all_connections", "a2abus fault test")
		},
		"broker restarted": func(t *testing.T) error {
			t.Cleanup(func() { _ = testenv.Rabbitmqctl(t, "start_app") }) // whatever happens below
			if err := testenv.Rabbitmqctl(t, "stop_app"); err != nil {
				return err
			}
			time.Sleep(time.Second) // the reply's publish waits for the broker meanwhile
			return testenv.Rabbitmqctl(t, "start_app")
		},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) { brokerLostWhileAnswering(t, fault) })
	}
}

func brokerLostWhileAnswering(t *testing.T, fault func(t *testing.T) error) {
	w := wrap(t, testworld.Real(t))
	var runs atomic.Int32
	w.agent(w.N("Echo"), map[string]agent.Handler{"echo": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if runs.Add(1) == 1 {
			if err := fault(t); err != nil {
				return nil, err
			}
		}
		return agent.TextResult("survived: " + task.Text()), nil
	}})
	log, finished, ignored := outcomeLog()
	c := w.caller(w.N("Primary"), true, func(o *Options) { o.Logger = log })
	session := "fault-" + w.N("s")
	out, err := c.Call(ctxT(t), Request{Target: w.N("Echo"), Skill: "echo", Text: "lost", SessionID: session, Timeout: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Err() != nil || out.Result.Text() != "survived: lost" {
		t.Fatalf("outcome = %+v", out.Result)
	}
	testenv.Eventually(t, "the lost request redelivered and run again", func() bool { return runs.Load() >= 2 },
		testenv.Within(30*time.Second))
	testenv.Eventually(t, "the reply handled", func() bool { return finished(out.TaskID) >= 1 }, testenv.Within(30*time.Second))
	// One loss, one more run: the interrupted run replied nothing.
	if n, r := finished(out.TaskID)+ignored(out.TaskID), runs.Load(); n != 1 || r != 2 {
		t.Fatalf("%d replies handled and %d runs, want 1 reply and 2 runs", n, r)
	}
	if turns := w.turns(session); len(turns) != 1 {
		t.Fatalf("%d notification turns, want 1: %+v", len(turns), turns)
	}
	if s := w.stored(out.MemoryKey); s.Text() != "survived: lost" || s.Error != nil {
		t.Fatalf("stored = %+v", s)
	}
}
