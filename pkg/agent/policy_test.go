// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// policyFunc adapts a function to Policy.
type policyFunc func(caller, target string) error

func (f policyFunc) Authorize(caller, target string) error { return f(caller, target) }

func TestPolicyRefusesTasksBeforeTheyRun(t *testing.T) {
	h := newHarness(t)
	var runs atomic.Int32
	var mode, asked atomic.Value
	a := h.agent(Options{Policy: policyFunc(func(caller, target string) error {
		asked.Store(caller + "->" + target)
		switch mode.Load() {
		case "banned":
			return a2a.NewError(a2a.CodeForbidden, "%s may not call %s: banned", caller, target)
		case "broken":
			return errors.New("policy store unreachable")
		}
		return nil
	})}, map[string]Handler{"echo": func(ctx context.Context, t *Task) (*Result, error) {
		runs.Add(1)
		return echo(ctx, t)
	}})
	h.start(a)
	for _, tc := range []struct{ mode, text string }{
		{"banned", testCaller + " may not call Worker: banned"},
		{"broken", testCaller + " may not call Worker: policy store unreachable"},
	} {
		mode.Store(tc.mode)
		req := h.send("Worker", "echo", "x")
		e, ok := h.final(req.TaskID).(*a2a.TaskError)
		if !ok || e.Code != a2a.CodeForbidden || e.State != a2a.TaskStateRejected || !strings.Contains(e.Message, tc.text) {
			t.Fatalf("reply when %s = %+v, want FORBIDDEN %q", tc.mode, h.final(req.TaskID), tc.text)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the handler ran %d times for forbidden tasks", n)
	}
	mode.Store("ok")
	req := h.send("Worker", "echo", "x")
	if _, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || runs.Load() != 1 {
		t.Fatalf("allowed task = %+v (runs %d)", h.final(req.TaskID), runs.Load())
	}
	if got := asked.Load(); got != testCaller+"->Worker" {
		t.Errorf("the policy was asked about %v, want %s->Worker", got, testCaller)
	}
}

func TestGuardIsAPolicy(t *testing.T) {
	g, err := guard.New(guard.Config{Policy: guard.Policy{Default: guard.Deny, Rules: []guard.Rule{{Caller: testCaller, Allow: []string{"Work*"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.start(h.agent(Options{Card: a2a.AgentCard{Name: "Worker"}, Policy: g}, map[string]Handler{"echo": echo}))
	h.start(h.agent(Options{Card: a2a.AgentCard{Name: "Vault"}, Policy: g}, map[string]Handler{"echo": echo}))
	if _, ok := h.final(h.send("Worker", "echo", "x").TaskID).(*a2a.TaskResult); !ok {
		t.Fatal("a call the guard allows was refused")
	}
	if code := h.errorCode(h.send("Vault", "echo", "x").TaskID); code != a2a.CodeForbidden {
		t.Fatalf("task for Vault = %s, want FORBIDDEN (not in the allow list)", code)
	}
	var none *guard.Guard // a nil guard allows everything
	h.start(h.agent(Options{Card: a2a.AgentCard{Name: "Open"}, Policy: none}, map[string]Handler{"echo": echo}))
	if _, ok := h.final(h.send("Open", "echo", "x").TaskID).(*a2a.TaskResult); !ok {
		t.Fatal("a nil guard refused a task")
	}
}
