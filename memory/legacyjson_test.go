// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"encoding/json"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

type legacyInner struct {
	TaskID string `json:"taskId"`
}

type legacyValue struct {
	legacyInner
	SessionID string          `json:"sessionId,omitempty"`
	StepCount int             `json:"stepCount"`
	Data      json.RawMessage `json:"data,omitempty"`
	Plain     string
	Skipped   string `json:"-"`
}

func (v *legacyValue) UnmarshalJSON(b []byte) error {
	type plain legacyValue
	return memory.UnmarshalLegacyJSON(b, (*plain)(v))
}

// TestUnmarshalLegacyJSON: a value stored with snake_case names decodes
// like its camelCase form; the camelCase name wins when both are there;
// nested data (a step's own output) keeps its names; non-objects get
// json's own answer.
func TestUnmarshalLegacyJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"taskId":"t1","sessionId":"s1","stepCount":2,"data":{"cash_flows":[1]}}`, `t1 s1 2 {"cash_flows":[1]}`},
		{`{"task_id":"t1","session_id":"s1","step_count":2,"data":{"cash_flows":[1]}}`, `t1 s1 2 {"cash_flows":[1]}`},
		{`{"session_id":"old","sessionId":"new","task_id":"t"}`, `t new 0 `},
		{`{"sessionId":"new","session_id":"old"}`, ` new 0 `},
		{`{"unknown_field":1,"Plain":"p"}`, ` ` + ` 0 `},
	} {
		var v legacyValue
		if err := json.Unmarshal([]byte(c.in), &v); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := v.TaskID + " " + v.SessionID + " " + itoa(v.StepCount) + " " + string(v.Data); got != c.want {
			t.Errorf("%s decoded as %q, want %q", c.in, got, c.want)
		}
	}
	var v legacyValue
	if err := json.Unmarshal([]byte(`["a_b"]`), &v); err == nil {
		t.Fatal("an array decoded into a struct")
	}
	if err := json.Unmarshal([]byte(`{"step_count":"x"}`), &v); err == nil {
		t.Fatal("a string decoded into an int under the old name")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestMetaValue(t *testing.T) {
	meta := map[string]string{"taskId": "new", "memory_key": "old", "kind": "k", "a2a_task": "t"}
	for key, want := range map[string]string{"taskId": "new", "memoryKey": "old", "kind": "k", "a2aTask": "t", "agent": ""} {
		if got := memory.MetaValue(meta, key); got != want {
			t.Errorf("MetaValue(%q) = %q, want %q", key, got, want)
		}
	}
	if got := memory.MetaValue(map[string]string{"task_id": "old", "taskId": "new"}, "taskId"); got != "new" {
		t.Errorf("the camelCase key lost: %q", got)
	}
	for camel, snake := range map[string]string{"taskId": "task_id", "toolCallId": "tool_call_id", "a2aCaller": "a2a_caller", "kind": "kind"} {
		if got := memory.CamelToSnake(camel); got != snake {
			t.Errorf("CamelToSnake(%q) = %q, want %q", camel, got, snake)
		}
	}
}
