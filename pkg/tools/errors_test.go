// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

func TestErrorResult(t *testing.T) {
	cases := []struct {
		err       error
		code      string
		retryable bool
	}{
		{a2a.NewError(a2a.CodeAgentNotFound, "no agent named X"), "AGENT_NOT_FOUND", false},
		{fmt.Errorf("invoke_agent: %w", a2a.NewError(a2a.CodeBusy, "full")), "BUSY", true},
		{&a2a.Error{Code: "NEW_CODE", Message: "from a newer peer", Retryable: true}, "NEW_CODE", true},
		{&tools.ArgumentError{Tool: "invoke_agent", Path: "skill", Message: `missing required argument "skill"`}, "INVALID_ARGUMENTS", false},
		{fmt.Errorf("%w \"x\"", tools.ErrUnknownTool), "UNKNOWN_TOOL", false},
		{&tools.NotFoundError{Key: "session/s1/k"}, "NOT_FOUND", false},
		{fmt.Errorf("x: %w", caller.ErrInvalidRequest), "INVALID_INPUT", false},
		{fmt.Errorf("read: %w", memory.ErrUnavailable), "UNAVAILABLE", true},
		{fmt.Errorf("publish: %w", bus.ErrNotConfirmed), "UNAVAILABLE", true},
		{fmt.Errorf("invoke: %w", context.DeadlineExceeded), "TIMEOUT", true},
		{context.Canceled, "CANCELED", false},
		{errors.New("boom"), "INTERNAL", false},
	}
	for _, c := range cases {
		raw := tools.ErrorResult(c.err)
		var out map[string]map[string]any
		if err := json.Unmarshal(raw, &out); err != nil || len(out) != 1 || len(out["error"]) != 3 {
			t.Fatalf("ErrorResult(%v) = %s: not {\"error\":{code,message,retryable}}", c.err, raw)
		}
		e := out["error"]
		if e["code"] != c.code || e["retryable"] != c.retryable || e["message"] != c.err.Error() {
			t.Errorf("ErrorResult(%v) = %s; want code %s retryable %v and the error's text", c.err, raw, c.code, c.retryable)
		}
	}
	if got := string(tools.ErrorResult(nil)); got != "null" {
		t.Errorf("ErrorResult(nil) = %s, want null", got)
	}
}
