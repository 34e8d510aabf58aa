// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// A stored error is written in camelCase, by both encoders, and a result
// stored with the old Go field names still reads back.
func TestStoredErrorIsCamelCase(t *testing.T) {
	s := &StoredResult{TaskID: "t1", Agent: "A", State: a2a.TaskStateFailed, Status: a2a.StatusTimeout,
		Error: a2a.NewError(a2a.CodeTimeout, "too slow"), StoredAt: time.Unix(1700000000, 0).UTC()}
	fast, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	std, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"encode": fast, "json.Marshal": std} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if got := string(m["error"]); got != `{"code":"TIMEOUT","message":"too slow","retryable":true}` {
			t.Errorf("%s: error %s, want camelCase code, message, retryable", name, got)
		}
	}
	ok := &StoredResult{TaskID: "t2", Agent: "A", State: a2a.TaskStateCompleted, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "x")}
	for _, enc := range []func() ([]byte, error){ok.encode, func() ([]byte, error) { return json.Marshal(ok) }} {
		b, err := enc()
		if err != nil || strings.Contains(string(b), `"error"`) {
			t.Errorf("a result without error: %s, %v", b, err)
		}
	}

	old := `{"taskId":"t1","agent":"A","state":"TASK_STATE_FAILED","status":"ERROR",` +
		`"error":{"Code":"EXECUTION_FAILED","Message":"boom","Retryable":false},"storedAt":"2023-11-14T22:13:20Z"}`
	var back StoredResult
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if back.Error == nil || back.Error.Code != a2a.CodeExecutionFailed || back.Error.Message != "boom" || back.Error.Retryable {
		t.Errorf("old shape read as %+v", back.Error)
	}
	if err := json.Unmarshal(fast, &back); err != nil || back.Error.Code != a2a.CodeTimeout || !back.Error.Retryable {
		t.Errorf("new shape read as %+v, %v", back.Error, err)
	}
}

// TestCallerJSONIsCamelCase: what the caller stores (the task record, the
// result as both encoders write it, the call history entry) and the meta of
// the notification turns it appends have camelCase names only.
func TestCallerJSONIsCamelCase(t *testing.T) {
	now := time.Unix(1700000000, 0).UTC()
	s := &StoredResult{TaskID: "t1", Agent: "A", Caller: "C", SessionID: "s1", Skill: "k", State: a2a.TaskStateFailed, Status: a2a.StatusError,
		Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "x"), Warnings: []string{"w"},
		Metadata: a2a.ResultMetadata{Extra: map[string]any{"toolCalls": []string{"a"}}}, Error: a2a.NewError(a2a.CodeTimeout, "slow"), Late: true, StoredAt: now}
	fast, err := s.encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{
		&Record{TaskID: "t1", Caller: "C", Target: "A", Skill: "k", SessionID: "s1", MemoryKey: "m", Deadline: now, CreatedAt: now, Chain: []string{"C"}},
		s, json.RawMessage(fast),
		&HistoryEntry{Time: now, CreatedAt: now, TaskID: "t1", SessionID: "s1", Caller: "C", Target: "A", Skill: "k", Chain: []string{"C"},
			Status: "ERROR", State: a2a.TaskStateFailed, Code: a2a.CodeTimeout, Error: "e", DurationMs: 5, Late: true},
		notificationTurn(s, "session/s1/a2a/A/t1/result", true),
	} {
		if bad := testenv.NotCamelCaseJSON(v); len(bad) > 0 {
			t.Errorf("%T: %q", v, bad)
		}
	}
}
