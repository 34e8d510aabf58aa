// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestBoundArgumentsRefusesBeforeParsing: a call whose arguments pass the
// bound never reaches the dispatcher (nothing parses or validates them);
// the model reads INVALID_ARGUMENTS naming the size, the bound and the key.
func TestBoundArgumentsRefusesBeforeParsing(t *testing.T) {
	var reached []int
	inner := func(_ context.Context, call llm.ToolCall) (string, bool) {
		reached = append(reached, len(call.Arguments))
		return `{"ok":true}`, false
	}
	d := tools.BoundArguments(inner, 1024)
	big := `{"message":"` + strings.Repeat("x", 1100) + `"}`
	out, failed := d(context.Background(), llm.ToolCall{ID: "c1", Name: "invoke_agent", Arguments: big})
	var res struct {
		Error struct {
			Code, Message string
			Retryable     bool
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !failed {
		t.Fatalf("result %s (failed %v): %v", out, failed, err)
	}
	if res.Error.Code != tools.CodeInvalidArguments || res.Error.Retryable ||
		!strings.Contains(res.Error.Message, "1114 bytes") || !strings.Contains(res.Error.Message, "1024 bytes (llm.max_tool_argument_bytes)") {
		t.Errorf("error = %+v, want INVALID_ARGUMENTS naming the size, the bound and the key", res.Error)
	}
	if out, failed := d(context.Background(), llm.ToolCall{ID: "c2", Name: "invoke_agent", Arguments: big[:1024]}); failed || out != `{"ok":true}` {
		t.Errorf("arguments at the bound: %s, %v; want the dispatcher's result", out, failed)
	}
	if len(reached) != 1 || reached[0] != 1024 {
		t.Errorf("the dispatcher saw arguments of %v bytes, want only the call at the bound", reached)
	}
	if _, failed := tools.BoundArguments(inner, 0)(context.Background(), llm.ToolCall{Name: "x", Arguments: strings.Repeat(" ", tools.DefaultMaxArgumentBytes+1)}); !failed {
		t.Error("no bound given: DefaultMaxArgumentBytes should apply")
	}
}
