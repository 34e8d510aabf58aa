// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"encoding/json"
	"testing"

	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestInheritHandoff: the Orchestrator takes the user context of a task's
// handoff in camelCase, and in the snake_case a request queued before the
// upgrade carries.
func TestInheritHandoff(t *testing.T) {
	for _, raw := range []string{
		`{"sessionId":"s1","userId":"u1","originalRequest":"plan it","constraints":{"budget":5}}`,
		`{"session_id":"s1","user_id":"u1","original_request":"plan it","constraints":{"budget":5}}`,
	} {
		var ro workflow.RunOptions
		if err := inheritHandoff(json.RawMessage(raw), &ro); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if ro.SessionID != "s1" || ro.UserID != "u1" || ro.Request != "plan it" || ro.Constraints["budget"] != float64(5) {
			t.Errorf("%s gave %+v", raw, ro)
		}
	}
	if err := inheritHandoff(json.RawMessage(`[1]`), &workflow.RunOptions{}); err == nil {
		t.Fatal("an array handoff was taken")
	}
}
