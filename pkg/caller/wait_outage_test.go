// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Working memory gone (a Redis failover: connections refused) while Call
// waits for a task it sent: the wait rides the outage out and Call returns
// the task's answer once memory is back. Before, Call returned the failed
// look-up as its error — for a task that ran — so a caller was told "not
// done" with no task id to find its result (the cluster soak's
// Sentinel failovers found it).
func TestCallRidesOutAMemoryOutageWhileWaiting(t *testing.T) {
	redisURL := testenv.RedisURL(t) // skip locally (fail under CI) without Redis
	w := testworld.Real(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	proxy, url := testenv.ProxyURL(t, redisURL)
	mem, err := redismem.New(ctx, redismem.Options{URL: url, KeyPrefix: w.KeyPrefix, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mem.Close() }()

	started, gate := make(chan struct{}), make(chan struct{})
	var opened sync.Once
	open := func() { opened.Do(func() { close(gate) }) }
	defer open() // a failed test leaves no handler blocked
	target := w.N("Echo")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		close(started)
		<-gate
		return agent.TextResult("kept: " + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	core, logs := observer.New(zap.WarnLevel)
	c, err := caller.New(caller.Options{Name: w.N("Primary"), Bus: w.Connect(t), Memory: mem, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c)

	type result struct {
		out *caller.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.Call(ctx, caller.Request{Target: target, Skill: "echo", Text: "x", Timeout: time.Minute}, nil)
		done <- result{out, err}
	}()
	<-started
	proxy.Down()
	defer proxy.Up()
	var ended *result
	testenv.Eventually(t, "the waiting Call to see working memory fail", func() bool {
		select {
		case r := <-done:
			ended = &r
			return true
		default:
		}
		return logs.FilterMessage("working memory failed while waiting for a task's outcome; the wait goes on").Len() > 0
	}, testenv.Within(time.Minute))
	if ended != nil {
		t.Fatalf("Call ended while working memory was down: %v (outcome %v), want it to wait", ended.err, ended.out)
	}
	open()
	proxy.Up()
	r := <-done
	if r.err != nil {
		t.Fatalf("Call after a memory outage: %v, want the answer", r.err)
	}
	if err := r.out.Err(); err != nil || r.out.Result.Text() != "kept: x" {
		t.Fatalf("outcome %v (%v), want completed with %q", r.out.Result.State, err, "kept: x")
	}
}
