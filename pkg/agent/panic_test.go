// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"strings"
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

// A panicking skill's caller stores a short message with the panic value
// and no stack; the agent logs the stack once, at error level, with the
// task and the skill.
func TestPanicSendsNoStackToTheCaller(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		target := w.N("Fragile")
		core, logs := observer.New(zapcore.DebugLevel)
		a, err := New(Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: time.Second, Logger: zap.New(core)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle("work", func(context.Context, *Task) (*Result, error) { panic("the ledger is empty") }); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
		c := callers.Start(t, w, w.N("Prober"))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := c.Call(ctx, caller.Request{Target: target, Skill: "work", Text: "x", SessionID: "panics", Timeout: 10 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a2a.CodeOf(out.Err()) != a2a.CodeExecutionFailed || out.Result.Error == nil ||
			out.Result.Error.Message != `skill "work" panicked: the ledger is empty` {
			t.Fatalf("outcome error = %v, want EXECUTION_FAILED: skill \"work\" panicked: the ledger is empty", out.Err())
		}
		stored, err := w.Memory.Get(ctx, out.MemoryKey)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(stored); !strings.Contains(s, "the ledger is empty") || strings.Contains(s, "goroutine") || strings.Contains(s, ".go:") {
			t.Fatalf("stored result leaks the stack or lacks the value: %s", s)
		}

		logged := logs.FilterMessage("skill panicked").FilterField(zap.String("task", out.TaskID)).FilterField(zap.String("skill", "work"))
		if logged.Len() != 1 || logged.All()[0].Level != zapcore.ErrorLevel {
			t.Fatalf("want one error line \"skill panicked\" for the task; logs: %v", logs.All())
		}
		withStack := 0
		for _, e := range logs.All() {
			for _, f := range e.Context {
				if strings.Contains(f.String, "goroutine ") {
					withStack++
				}
			}
		}
		if stack := logged.All()[0].ContextMap()["stack"]; withStack != 1 || !strings.Contains(stack.(string), "panic_test.go") {
			t.Fatalf("the stack is logged %d times (want once, in the \"skill panicked\" line); logs: %v", withStack, logs.All())
		}
	})
}

// A long panic value reaches the caller truncated.
func TestPanicValueIsTruncated(t *testing.T) {
	h := newHarness(t)
	h.start(h.agent(Options{}, map[string]Handler{"work": func(context.Context, *Task) (*Result, error) {
		panic(strings.Repeat("é", 1000))
	}}))
	req := h.send("Worker", "work", "x")
	e, ok := h.final(req.TaskID).(*a2a.TaskError)
	if !ok || !strings.HasPrefix(e.Message, `skill "work" panicked: éé`) || len(e.Message) > 300 || !strings.HasSuffix(e.Message, "…") {
		t.Fatalf("reply = %+v, want the panic value cut to about %d bytes", h.final(req.TaskID), maxPanicValue)
	}
}

// The "task failed" line hides the secrets in the error it logs.
func TestTaskFailedLogIsRedacted(t *testing.T) {
	h := newHarness(t)
	core, logs := observer.New(zapcore.InfoLevel)
	h.start(h.agent(Options{Logger: zap.New(core)}, map[string]Handler{"work": func(context.Context, *Task) (*Result, error) {
		return nil, errors.New("dial amqp://user:secret@rabbit:5672/: connection refused")
	}}))
	req := h.send("Worker", "work", "x")
	if code := h.errorCode(req.TaskID); code != a2a.CodeExecutionFailed {
		t.Fatalf("code = %s", code)
	}
	failed := logs.FilterMessage("task failed").FilterField(zap.String("task", req.TaskID)).All()
	if len(failed) != 1 {
		t.Fatalf("want one \"task failed\" line; logs: %v", logs.All())
	}
	if msg := failed[0].ContextMap()["error"].(string); strings.Contains(msg, "secret") || !strings.Contains(msg, "amqp://user:xxxxx@rabbit:5672/") {
		t.Fatalf("logged error %q, want the password hidden", msg)
	}
}
