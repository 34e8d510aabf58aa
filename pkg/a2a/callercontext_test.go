// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"strings"
	"testing"
)

// A request's caller context and narrowing are checked; each bad field is
// a *FieldError naming it.
func TestValidateCallerContext(t *testing.T) {
	r := func(mod func(*TaskRequest)) *TaskRequest {
		req := sampleTurnRequest()
		mod(req)
		return req
	}
	for _, tc := range []struct {
		name  string
		p     Payload
		field string
	}{
		{"negative budget", r(func(q *TaskRequest) { q.MaxContextTokens = -1 }), "maxContextTokens"},
		{"bad tool name", r(func(q *TaskRequest) { q.AllowedTools = []string{"invoke_agent", "rm -rf"} }), "allowedTools[1]"},
		{"empty tool name", r(func(q *TaskRequest) { q.AllowedTools = []string{""} }), "allowedTools[0]"},
		{"too many tools", r(func(q *TaskRequest) { q.AllowedTools = make([]string, MaxAllowedTools+1) }), "allowedTools"},
		{"too many messages", r(func(q *TaskRequest) {
			q.CallerContext.Messages = make([]ContextMessage, MaxCallerContextMessages+1)
		}), "callerContext.messages"},
		{"no role", r(func(q *TaskRequest) { q.CallerContext.Messages[1].Role = "" }), "callerContext.messages[1].role"},
		{"long key", r(func(q *TaskRequest) { q.CallerContext.Key = strings.Repeat("k", 513) }), "callerContext.key"},
		{"negative count", r(func(q *TaskRequest) { q.CallerContext.Count = -2 }), "callerContext.count"},
	} {
		err := tc.p.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: %v, want a *FieldError on %q", tc.name, err, tc.field)
		}
	}
	if err := sampleTurnRequest().Validate(); err != nil {
		t.Errorf("a request with a caller context: %v", err)
	}
}
