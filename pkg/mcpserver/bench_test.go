// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/tools"
)

// BenchmarkGetFromWorkingMemory measures what MCP adds to a tool call:
// get_from_working_memory of a stored result on the embedded memory, by
// the set directly ("set") and through the SDK's client and server on an
// in-memory transport ("mcp").
func BenchmarkGetFromWorkingMemory(b *testing.B) {
	w := testworld.Embedded(b)
	const session = "bench"
	key := "session/" + session + "/a2a/Agent/t1/result"
	if err := w.Memory.Set(context.Background(), key, []byte(`{"taskId":"t1","state":"TASK_STATE_COMPLETED"}`), time.Hour); err != nil {
		b.Fatal(err)
	}
	deps := tools.Deps{Caller: nopInvoker{}, Agents: nopLister{}, Memory: w.Memory, SessionID: session}
	args := json.RawMessage(`{"key":"` + key + `"}`)
	b.Run("set", func(b *testing.B) {
		set, err := tools.New(deps)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := set.Dispatch(context.Background(), "get_from_working_memory", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		srv, err := mcpserver.New(mcpserver.Options{NewTools: mcpserver.SetTools(deps), Memory: w.Memory, SessionID: session})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Run(ctx, st) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "get_from_working_memory", Arguments: args}
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// nopInvoker and nopLister complete the dependencies get_from_working_memory does not use.
type nopInvoker struct{}

func (nopInvoker) Invoke(context.Context, caller.Request) (caller.Invocation, error) {
	return caller.Invocation{}, errors.New("bench: invoke not used")
}

type nopLister struct{}

func (nopLister) ListAgents(string, string) []tools.AgentInfo { return nil }
