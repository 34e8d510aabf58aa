// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestInvokeThenReadResult drives the tools as an LLM would, on a real
// caller and agent: invoke_agent, the result is not there yet, the agent
// answers, the notification names the key, get_from_working_memory reads it.
func TestInvokeThenReadResult(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		t.Cleanup(cancel)
		echoName, primary := w.N("Echo"), w.N("Primary")

		release := make(chan struct{})
		a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: echoName, Version: "1.0"}, Bus: w.Connect(t), StopTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle("echo", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return agent.TextResult("echo: " + task.Text()), nil
		}); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)

		c, err := caller.New(caller.Options{Name: primary, Bus: w.Connect(t), Memory: w.Memory})
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)

		const sessionID = "conv-1"
		agents := &fakeLister{agents: []tools.AgentInfo{{Name: echoName, Status: tools.StatusOnline, Instances: 1}}}
		set, err := tools.New(tools.Deps{Caller: c, Agents: agents, Memory: w.Memory, SessionID: sessionID})
		if err != nil {
			t.Fatal(err)
		}

		out, err := set.Dispatch(ctx, "invoke_agent", json.RawMessage(`{"agent_name":"`+echoName+`","skill":"echo","message":"hello","timeout_seconds":20}`))
		if err != nil {
			t.Fatal(err)
		}
		var inv tools.InvokeResult
		if err := json.Unmarshal(out, &inv); err != nil {
			t.Fatal(err)
		}
		if inv.Status != tools.StatusSubmitted || !strings.HasPrefix(inv.MemoryKey, "session/"+sessionID+"/a2a/"+echoName+"/"+inv.TaskID) {
			t.Fatalf("invoke_agent = %s", out)
		}

		getArgs := json.RawMessage(`{"key":"` + inv.MemoryKey + `"}`)
		if _, err := set.Dispatch(ctx, "get_from_working_memory", getArgs); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("before the agent answered: %v, want not found", err)
		}

		close(release)
		outcome, err := c.Wait(ctx, inv.TaskID, nil)
		if err != nil || outcome.Err() != nil {
			t.Fatalf("task outcome %+v, %v", outcome, err)
		}
		turns, err := w.Memory.Turns(ctx, sessionID, 0, 0)
		if err != nil || len(turns) != 1 || turns[0].Meta[caller.MetaMemoryKey] != inv.MemoryKey {
			t.Fatalf("notification turns %+v, %v; want one naming %q", turns, err, inv.MemoryKey)
		}

		// The LLM follows the notification: the key it names gives the result.
		got, err := set.Dispatch(ctx, "get_from_working_memory", json.RawMessage(`{"key":"`+turns[0].Meta[caller.MetaMemoryKey]+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var stored caller.StoredResult
		if err := json.Unmarshal(got, &stored); err != nil {
			t.Fatalf("result %s is not the stored result: %v", got, err)
		}
		if stored.TaskID != inv.TaskID || stored.State != a2a.TaskStateCompleted || a2a.MessageText(stored.Message) != "echo: hello" {
			t.Fatalf("get_from_working_memory = %s", got)
		}
	})
}
