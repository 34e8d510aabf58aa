// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// BenchmarkInvokeAgent measures invoke_agent's own cost (schema validation,
// decoding, resolving, encoding) around a fake caller.
func BenchmarkInvokeAgent(b *testing.B) {
	f := newFixture(b, fakeResolver{"Echo": {"echo"}})
	args := json.RawMessage(`{"agent_name":"echo","skill":"echo","message":"summarise the report","input":{"pages":[1,2,3]},"timeout_seconds":60,"priority":"high"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.set.Dispatch(ctx, "invoke_agent", args); err != nil {
			b.Fatal(err)
		}
		f.inv.reqs = f.inv.reqs[:0]
	}
}

// BenchmarkGetFromWorkingMemory measures reading a 4 KiB JSON result from the in-memory store.
func BenchmarkGetFromWorkingMemory(b *testing.B) {
	f := newFixture(b, nil)
	ctx := context.Background()
	value, _ := json.Marshal(map[string]string{"text": strings.Repeat("The quick brown fox jumps over the lazy dog. ", 93)})
	if err := f.mem.Set(ctx, "session/s1/a2a/Echo/t1/result", value, time.Hour); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"key":"session/s1/a2a/Echo/t1/result"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.set.Dispatch(ctx, "get_from_working_memory", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeAgentWait measures a waited invoke_agent on the real
// servers, through Run as the tool loop calls it: the task published, run
// by an agent that answers at once, its outcome stored and returned inline.
func BenchmarkInvokeAgentWait(b *testing.B) {
	w := testworld.Real(b)
	ctx := context.Background()
	echoName := w.N("Echo")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: echoName, Version: "1.0"}, Bus: w.Connect(b), StopTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Handle("echo", func(_ context.Context, t *agent.Task) (*agent.Result, error) { return agent.TextResult(t.Text()), nil }); err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, a)
	c, err := caller.New(caller.Options{Name: w.N("Primary"), Bus: w.Connect(b), Memory: w.Memory})
	if err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, c, caller.ErrClosed)
	set, err := tools.New(tools.Deps{Caller: c, Agents: &fakeLister{}, Memory: w.Memory, SessionID: "bench-wait"})
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	call := llm.ToolCall{ID: "1", Name: "invoke_agent", Arguments: `{"agent_name":"` + echoName + `","skill":"echo","message":"ping","wait":true}`}
	b.ReportAllocs()
	for b.Loop() {
		if out, isError := set.Run(ctx, call); isError || !strings.Contains(out, `"state":"completed"`) {
			b.Fatalf("Run = %s", out)
		}
	}
}
