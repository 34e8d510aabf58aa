// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// A completed task's notification says what it said when fmt wrote it,
// with fewer allocations; every state is named as before.
func TestNotificationTextOfAnAnswer(t *testing.T) {
	for _, state := range []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
		a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateWorking, "TASK_STATE_ODD", "other"} {
		if got, want := stateWord(state), strings.ToLower(strings.TrimPrefix(string(state), "TASK_STATE_")); got != want {
			t.Errorf("%s: %q, want %q", state, got, want)
		}
	}
	key := "session/s1/a2a/Echo/t1/result"
	for _, late := range []bool{false, true} {
		s := &StoredResult{TaskID: "t1", Agent: "Echo", State: a2a.TaskStateCompleted, Late: late,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "hello  there")}
		format := "[Agent '%s' completed task %s (state=%s)]: %s. Call get_from_working_memory with key '%s' to read the full result."
		if late {
			format = "[Agent '%s' completed task %s late, after it had timed out (state=%s)]: %s. Call get_from_working_memory with key '%s' to read the full result."
		}
		want := fmt.Sprintf(format, "Echo", "t1", "completed", "hello there", key)
		if got := notificationTurn(s, key, false).Content; got != want {
			t.Errorf("late %v:\n%s\nwant\n%s", late, got, want)
		}
	}
	s := &StoredResult{TaskID: "t1", Agent: "Echo", State: a2a.TaskStateCompleted, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "hello")}
	if n := testing.AllocsPerRun(100, func() { _ = notificationTurn(s, key, false) }); n > 4 && !raceEnabled {
		t.Errorf("a completed task's notification took %v allocations, want at most 4 (the text, the meta map)", n)
	}
}
