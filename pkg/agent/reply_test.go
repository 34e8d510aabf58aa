// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// startCounting runs an agent named name on w whose skill "work" counts its
// runs and returns what result returns; opts may set the codec and logger.
func startCounting(t *testing.T, w *testworld.World, opts Options, result func() *Result) (*Agent, *atomic.Int32) {
	t.Helper()
	runs := new(atomic.Int32)
	opts.Bus = w.Connect(t)
	if opts.StopTimeout == 0 {
		opts.StopTimeout = time.Second
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("work", func(context.Context, *Task) (*Result, error) {
		runs.Add(1)
		return result(), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	return a, runs
}

// A result larger than the codec's limit can never be published: the
// caller receives RESULT_TOO_LARGE naming both sizes, after one run of the
// handler, instead of a TIMEOUT after the task ran on every attempt.
func TestResultTooLargeFailsTheTaskOnce(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		const limit = 16 << 10
		target := w.N("Verbose")
		a, runs := startCounting(t, w, Options{Card: a2a.AgentCard{Name: target}, Codec: a2a.Codec{MaxBodyBytes: limit}},
			func() *Result { return TextResult(strings.Repeat("x", 4*limit)) })
		c := callers.Start(t, w, w.N("Reader"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := c.Call(ctx, caller.Request{Target: target, Skill: "work", Text: "x", SessionID: "big", Timeout: 10 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := out.Err().(*a2a.Error)
		if !ok || e.Code != a2a.CodeResultTooLarge || e.Retryable ||
			!strings.Contains(e.Message, fmt.Sprint(limit)) || !strings.Contains(e.Message, `skill "work"`) {
			t.Fatalf("outcome error = %#v, want a non-retryable RESULT_TOO_LARGE naming the skill and the limit %d", out.Err(), limit)
		}
		var size int
		_, sized, _ := strings.Cut(e.Message, "result of ")
		if _, err := fmt.Sscanf(sized, "%d bytes", &size); err != nil || size <= 4*limit {
			t.Errorf("message %q does not name the result's size (over %d bytes)", e.Message, 4*limit)
		}
		if out.Result.State != a2a.TaskStateFailed {
			t.Errorf("state = %s, want failed", out.Result.State)
		}
		if err := a.Close(); err != nil { // every run has ended
			t.Fatal(err)
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("the handler ran %d times, want once", n)
		}
	})
}

// A reply whose caller has no response queue can never be received: the
// task is dead-lettered after one run and a warning names the task and the
// caller; it is not requeued and run again.
func TestUnroutableReplyDeadLettersTheTaskOnce(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		target, ghost := w.N("Orphaned"), w.N("Ghost")
		core, logs := observer.New(zapcore.WarnLevel)
		_, runs := startCounting(t, w, Options{Card: a2a.AgentCard{Name: target}, Logger: zap.New(core)},
			func() *Result { return TextResult("nobody hears this") })
		raw := newRawClient(t, w, w.N("Raw"))
		req := raw.send(target, "work", ghost) // ghost's response queue was never declared
		waitDeadLettered(t, w, req.TaskID)
		if n := runs.Load(); n != 1 {
			t.Fatalf("the handler ran %d times, want once", n)
		}
		warned := logs.FilterMessage("reply unroutable: the caller's response queue does not exist; task dead-lettered, not run again").
			FilterField(zap.String("task", req.TaskID)).FilterField(zap.String("caller", ghost))
		if warned.Len() != 1 {
			t.Fatalf("want one warning naming the task and the caller; logs: %v", logs.All())
		}
	})
}

// A handler's error with an invalid code cannot be encoded: the caller
// gets EXECUTION_FAILED at once, the task does not run again.
func TestUnencodableErrorIsReplacedOnce(t *testing.T) {
	h := newHarness(t)
	var runs atomic.Int32
	h.start(h.agent(Options{}, map[string]Handler{"bad": func(context.Context, *Task) (*Result, error) {
		runs.Add(1)
		return nil, &a2a.Error{Code: "not a code", Message: "boom"}
	}}))
	req := h.send("Worker", "bad", "x")
	e, ok := h.final(req.TaskID).(*a2a.TaskError)
	if !ok || e.Code != a2a.CodeExecutionFailed || !strings.Contains(e.Message, "boom") {
		t.Fatalf("reply = %+v, want EXECUTION_FAILED with the message", h.final(req.TaskID))
	}
	assertQueueEmpty(t, h, "agent.task.Worker")
	if n := runs.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want once", n)
	}
}
