// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/mcpserver"
)

// TestProgressNotifications: a call with a progress token gets the task's
// status updates as notifications/progress, in order, with increasing
// progress; a call without one gets a set with no status hook.
func TestProgressNotifications(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	w := testworld.Embedded(t)
	var m *mesh
	var withHook, withoutHook atomic.Int32
	m = newMesh(t, w, mcpserver.Options{NewTools: func(session string, progress mcpserver.StatusFunc) (mcpserver.Tools, error) {
		if progress == nil {
			withoutHook.Add(1)
		} else {
			withHook.Add(1)
		}
		return mcpserver.SetTools(m.deps)(session, progress)
	}})
	c := connect(t, m.server, latest)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	params := &mcp.CallToolParams{Name: "invoke_agent", Arguments: map[string]any{"agent_name": m.agent, "skill": "sleep", "message": "2500", "wait": true}}
	params.SetProgressToken("tok-1")
	res, err := c.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("invoke_agent: %v %+v", err, res)
	}
	seen := c.progressSeen()
	if len(seen) < 2 {
		t.Fatalf("%d progress notifications, want one per status update (at least 2 for 2.5s of sleep)", len(seen))
	}
	reported := false
	for i, p := range seen {
		if p.ProgressToken != "tok-1" || p.Progress != float64(i+1) || !strings.HasPrefix(p.Message, m.agent+" working") {
			t.Errorf("progress %d = %+v", i, p)
		}
		reported = reported || (strings.Contains(p.Message, "% (task ") && strings.Contains(p.Message, "): slept "))
	}
	if !reported {
		t.Errorf("no progress notification carries the agent's percentage and text: %+v", seen)
	}
	if withHook.Load() != 1 {
		t.Errorf("NewTools got a progress hook %d times, want once (for the call with a token)", withHook.Load())
	}

	before := len(c.progressSeen())
	if _, isErr, _ := c.call(t, "list_known_agents", map[string]any{}); isErr {
		t.Fatal("list_known_agents failed")
	}
	if withHook.Load() != 1 || len(c.progressSeen()) != before {
		t.Errorf("a call without a token got a hook (%d) or progress (%d)", withHook.Load(), len(c.progressSeen())-before)
	}
	if withoutHook.Load() != 1 {
		t.Errorf("NewTools without a hook called %d times, want once (the session's set)", withoutHook.Load())
	}
}
