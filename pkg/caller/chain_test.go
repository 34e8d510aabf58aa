// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// resolverFunc adapts a function to Resolver.
type resolverFunc func(agent, skill string) (string, error)

func (f resolverFunc) Resolve(_ context.Context, agent, skill string) (string, error) {
	return f(agent, skill)
}

// InputSchema: the resolver declares no schemas.
func (resolverFunc) InputSchema(string, string) (json.RawMessage, bool) { return nil, false }

func TestResolverVetsAndCanonicalisesTargets(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	w.agent("Echo", map[string]agent.Handler{"echo": echo})
	known := resolverFunc(func(name, skill string) (string, error) {
		if !strings.EqualFold(name, "echo") {
			return "", a2a.NewError(a2a.CodeAgentNotFound, "no agent %q; closest: Echo", name)
		}
		if skill != "echo" {
			return "", a2a.NewError(a2a.CodeSkillNotSupported, "Echo has no skill %q; it has: echo", skill)
		}
		return "Echo", nil
	})
	c := w.caller("Primary", true, func(o *Options) { o.Resolver = known })
	out, err := c.Call(ctxT(t), Request{Target: "ECHO", Skill: "echo", Text: "x"}, nil)
	if err != nil || out.Target != "Echo" || out.Result.Text() != "echo: x" {
		t.Fatalf("call = %+v, %v", out, err)
	}
	for _, tc := range []struct {
		req  Request
		code a2a.ErrorCode
	}{
		{Request{Target: "Ech", Skill: "echo", Text: "x"}, a2a.CodeAgentNotFound},
		{Request{Target: "Echo", Skill: "npv", Text: "x"}, a2a.CodeSkillNotSupported},
	} {
		if _, err := c.Invoke(context.Background(), tc.req); a2a.CodeOf(err) != tc.code {
			t.Errorf("invoke %+v: %v, want %s", tc.req, err, tc.code)
		}
		if _, err := c.Call(context.Background(), tc.req, nil); a2a.CodeOf(err) != tc.code {
			t.Errorf("call %+v: %v, want %s", tc.req, err, tc.code)
		}
	}
}

func TestCallChainRefusals(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	c := w.caller("Primary", false, func(o *Options) { o.MaxDepth = 3 })
	cases := []struct {
		req  Request
		code a2a.ErrorCode
	}{
		{Request{Target: "primary", Skill: "echo", Text: "x"}, a2a.CodeCycleDetected},
		{Request{Target: "A", Skill: "echo", Text: "x", CallChain: []string{"A", "B"}}, a2a.CodeCycleDetected},
		{Request{Target: "C", Skill: "echo", Text: "x", CallChain: []string{"A", "B"}}, a2a.CodeDepthExceeded},
	}
	for _, tc := range cases {
		if _, err := c.Invoke(context.Background(), tc.req); a2a.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc.req, err, tc.code)
		}
	}
}

// A handler that calls another agent passes nothing by hand: the sub-call
// inherits the session, correlation id, chain, handoff and deadline of its task.
func TestNestedCallsInheritTheirTask(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		mid, leaf := w.N("Mid"), w.N("Leaf")
		seen := make(chan *a2a.TaskRequest, 1)
		w.agent(leaf, map[string]agent.Handler{"echo": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			seen <- task.Request
			return agent.TextResult("leaf"), nil
		}})
		midCaller := w.caller(mid, true)
		w.agent(mid, map[string]agent.Handler{"fwd": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			out, err := midCaller.Call(ctx, Request{Target: leaf, Skill: "echo", Text: "down", Timeout: time.Hour}, nil)
			if err != nil {
				return nil, err
			}
			return agent.TextResult("mid+" + out.Result.Text()), out.Err()
		}})
		c := w.caller(w.N("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: mid, Skill: "fwd", Text: "go", SessionID: "nest", CorrelationID: "wf-1", Timeout: 20 * time.Second,
			Handoff: json.RawMessage(`{"workflowPosition":"Step 2 of 4"}`)}, nil)
		if err != nil || out.Result.Text() != "mid+leaf" {
			t.Fatalf("call = %+v, %v", out, err)
		}
		sub := <-seen
		if sub.SessionID != "nest" || sub.CorrelationID != "wf-1" || strings.Join(sub.CallChain, ",") != w.N("Primary")+","+mid {
			t.Fatalf("sub-call = session %q correlation %q chain %v", sub.SessionID, sub.CorrelationID, sub.CallChain)
		}
		if string(sub.Handoff) != `{"workflowPosition":"Step 2 of 4"}` {
			t.Fatalf("sub-call handoff = %s, want its task's", sub.Handoff)
		}
		if sub.Deadline.After(out.Deadline) {
			t.Fatalf("sub-call deadline %s is after its task's %s", sub.Deadline, out.Deadline)
		}
	})
}

// A -> B -> A fails fast with CYCLE_DETECTED: nobody waits for a timeout.
func TestCycleFailsFast(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		a, b := w.N("A"), w.N("B")
		forward := func(self, to string) agent.Handler {
			c := w.caller(self, true)
			return func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
				out, err := c.Call(ctx, Request{Target: to, Skill: "fwd", Text: task.Text()}, nil)
				if err != nil {
					return nil, err
				}
				return agent.TextResult(out.Result.Text()), out.Err()
			}
		}
		w.agent(a, map[string]agent.Handler{"fwd": forward(a, b)})
		w.agent(b, map[string]agent.Handler{"fwd": forward(b, a)})
		c := w.caller(w.N("Primary"), true)
		// The deadline is far: only the cycle check can end the call before ctxT's bound.
		out, err := c.Call(ctxT(t), Request{Target: a, Skill: "fwd", Text: "loop", Timeout: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a2a.CodeOf(out.Err()) != a2a.CodeCycleDetected || !strings.Contains(out.Result.Text(), a+" -> "+b+" -> "+a) {
			t.Fatalf("outcome = %+v", out.Result)
		}
	})
}

// A high-priority task published behind a backlog of low ones is served first.
func TestHighPriorityOvertakesABacklog(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target := w.N("Busy")
		c := w.caller(w.N("Primary"), true)
		var ids []string
		for i := range 10 {
			inv, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: fmt.Sprint("low ", i), Priority: a2a.PriorityLow})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, inv.TaskID)
		}
		high, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "echo", Text: "high", Priority: a2a.PriorityHigh})
		if err != nil {
			t.Fatal(err)
		}
		order := make(chan string, 11)
		a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		_ = a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			order <- task.Request.TaskID
			return agent.TextResult(task.Text()), nil
		})
		go func() { _ = a.Run(context.Background()) }()
		t.Cleanup(func() { _ = a.Close() })
		select {
		case first := <-order:
			if first != high.TaskID {
				t.Fatalf("first task served was %s, want the high-priority %s", first, high.TaskID)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no task served")
		}
		if _, err := c.Wait(ctxT(t), ids[len(ids)-1], nil); err != nil {
			t.Fatal(err)
		}
	})
}
