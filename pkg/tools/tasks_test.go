// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// info is a task of the fixture's session, invoked a minute ago, due in a minute.
func info(id string, mod func(*caller.TaskInfo)) *caller.TaskInfo {
	now := time.Now()
	i := &caller.TaskInfo{Record: caller.Record{TaskID: id, Caller: "Primary", Target: "Echo", Skill: "echo", SessionID: session,
		MemoryKey: "session/s1/a2a/Echo/" + id + "/result", Deadline: now.Add(time.Minute), CreatedAt: now.Add(-time.Minute)}, Pending: true}
	if mod != nil {
		mod(i)
	}
	return i
}

func completed(text string) func(*caller.TaskInfo) {
	return func(i *caller.TaskInfo) {
		i.Pending = false
		i.Result = &caller.StoredResult{TaskID: i.TaskID, Agent: i.Target, State: a2a.TaskStateCompleted,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, text)}
	}
}

func failed(code a2a.ErrorCode, msg string) func(*caller.TaskInfo) {
	return func(i *caller.TaskInfo) {
		i.Pending = false
		i.Result = &caller.StoredResult{TaskID: i.TaskID, Agent: i.Target, State: a2a.TaskStateFailed, Error: a2a.NewError(code, "%s", msg)}
	}
}

func statusOf(t *testing.T, f *fixture, id string) tools.TaskStatusResult {
	t.Helper()
	out, err := f.set.Dispatch(context.Background(), "task_status", json.RawMessage(`{"task_id":"`+id+`"}`))
	if err != nil {
		t.Fatalf("task_status(%s): %v", id, err)
	}
	var r tools.TaskStatusResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTaskStatusStates(t *testing.T) {
	f := newFixture(t, nil)
	long := strings.Repeat("word ", 200)
	f.tasks.put(info("t-pending", nil))
	f.tasks.put(info("t-done", completed("  the\nanswer  is 42 ")))
	f.tasks.put(info("t-long", completed(long)))
	f.tasks.put(info("t-failed", failed(a2a.CodeExecutionFailed, "disk full")))
	f.tasks.put(info("t-timeout", failed(a2a.CodeTimeout, "no answer from Echo within the deadline of 1s")))
	f.tasks.put(info("t-expired", func(i *caller.TaskInfo) { i.Pending = false }))
	f.tasks.put(info("t-overdue", func(i *caller.TaskInfo) { i.Deadline = time.Now().Add(-time.Second) }))

	r := statusOf(t, f, "t-pending")
	if r.State != tools.StatePending || r.Finished || r.Agent != "Echo" || r.Skill != "echo" || r.MemoryKey != "session/s1/a2a/Echo/t-pending/result" ||
		r.SecondsLeft == nil || *r.SecondsLeft < 50 || *r.SecondsLeft > 60 || r.Preview != "" || r.StatusMessage != "" ||
		!strings.Contains(r.Note, "Do not poll") {
		t.Errorf("pending task: %+v", r)
	}
	if _, err := time.Parse(time.RFC3339, r.Deadline); err != nil {
		t.Errorf("deadline %q: %v", r.Deadline, err)
	}
	r = statusOf(t, f, "t-done")
	if r.State != tools.StateCompleted || !r.Finished || r.Preview != "the answer is 42" || r.SecondsLeft != nil || r.Error != nil ||
		!strings.Contains(r.Note, "get_from_working_memory with key 'session/s1/a2a/Echo/t-done/result'") {
		t.Errorf("completed task: %+v", r)
	}
	if r = statusOf(t, f, "t-long"); len([]rune(r.Preview)) != tools.MaxPreview || !strings.HasSuffix(r.Preview, "…") {
		t.Errorf("long result preview %d characters %q", len([]rune(r.Preview)), r.Preview)
	}
	r = statusOf(t, f, "t-failed")
	if r.State != tools.StateFailed || !r.Finished || r.Error == nil || r.Error.Code != "EXECUTION_FAILED" || r.Error.Message != "disk full" || r.Preview != "" {
		t.Errorf("failed task: %+v", r)
	}
	r = statusOf(t, f, "t-timeout")
	if r.State != tools.StateTimeout || r.Error == nil || r.Error.Code != "TIMEOUT" || !r.Error.Retryable {
		t.Errorf("timed-out task: %+v", r)
	}
	r = statusOf(t, f, "t-expired")
	if r.State != tools.StateExpired || !r.Finished || !strings.Contains(r.Note, "no longer kept") {
		t.Errorf("expired task: %+v", r)
	}
	r = statusOf(t, f, "t-overdue")
	if r.State != tools.StatePending || r.SecondsLeft == nil || *r.SecondsLeft != 0 || !strings.Contains(r.Note, "deadline has passed") {
		t.Errorf("overdue task: %+v", r)
	}
}

// TestTaskToolErrors checks the typed errors of task_status and cancel_task
// and what the model reads of them.
func TestTaskToolErrors(t *testing.T) {
	cases := []struct {
		name, tool string
		task       *caller.TaskInfo
		readErr    error
		cancelErr  error
		sentinel   error
		code       string
		want       string
		retryable  bool
	}{
		{"unknown", "task_status", nil, nil, nil, tools.ErrUnknownTask, "UNKNOWN_TASK",
			"task_status: no task 't1' was started here, or it ended long ago and is forgotten; use a taskId returned by invoke_agent or named in a notification", false},
		{"other session", "task_status", info("t1", func(i *caller.TaskInfo) { i.SessionID = "s2" }), nil, nil, tools.ErrOtherSession, "OTHER_CONVERSATION",
			"task_status: task 't1' belongs to another conversation: only the tasks started in this conversation can be seen or canceled", false},
		{"other session cancel", "cancel_task", info("t1", func(i *caller.TaskInfo) { i.SessionID = "s2" }), nil, nil, tools.ErrOtherSession, "OTHER_CONVERSATION",
			"cancel_task: task 't1' belongs to another conversation: only the tasks started in this conversation can be seen or canceled", false},
		{"unknown cancel", "cancel_task", nil, nil, nil, tools.ErrUnknownTask, "UNKNOWN_TASK",
			"cancel_task: no task 't1' was started here, or it ended long ago and is forgotten; use a taskId returned by invoke_agent or named in a notification", false},
		{"finished", "cancel_task", info("t1", completed("done")), nil, nil, tools.ErrTaskFinished, "TASK_FINISHED",
			"cancel_task: task 't1' of agent 'Echo' already finished (state=completed): there is nothing to cancel; read its result with get_from_working_memory with key 'session/s1/a2a/Echo/t1/result'", false},
		{"timed out", "cancel_task", info("t1", failed(a2a.CodeTimeout, "late")), nil, nil, tools.ErrTaskFinished, "TASK_FINISHED",
			"cancel_task: task 't1' of agent 'Echo' already finished (state=timeout): there is nothing to cancel; read its result with get_from_working_memory with key 'session/s1/a2a/Echo/t1/result'", false},
		{"expired", "cancel_task", info("t1", func(i *caller.TaskInfo) { i.Pending = false }), nil, nil, tools.ErrTaskFinished, "TASK_FINISHED",
			"cancel_task: task 't1' of agent 'Echo' already finished (state=expired): there is nothing to cancel", false},
		{"forgotten while canceling", "cancel_task", info("t1", nil), nil, fmt.Errorf("caller: %w", caller.ErrUnknownTask), tools.ErrUnknownTask, "UNKNOWN_TASK",
			"cancel_task: no task 't1' was started here, or it ended long ago and is forgotten; use a taskId returned by invoke_agent or named in a notification", false},
		{"memory down", "task_status", nil, fmt.Errorf("load: %w", memory.ErrUnavailable), nil, memory.ErrUnavailable, "UNAVAILABLE",
			`task_status: read task "t1": load: memory: unavailable`, true},
		{"cancel not sent", "cancel_task", info("t1", nil), nil, fmt.Errorf("send cancel: %w", memory.ErrUnavailable), memory.ErrUnavailable, "UNAVAILABLE",
			`cancel_task: cancel task "t1": send cancel: memory: unavailable`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			if c.task != nil {
				f.tasks.put(c.task)
			}
			f.tasks.readErr, f.tasks.cancelErr = c.readErr, c.cancelErr
			_, err := f.call(t, c.tool, `{"task_id":"t1"}`)
			if !errors.Is(err, c.sentinel) || err.Error() != c.want {
				t.Fatalf("error %v\nwant %q wrapping %v", err, c.want, c.sentinel)
			}
			var body struct {
				Error struct {
					Code, Message string
					Retryable     bool
				}
			}
			if json.Unmarshal(tools.ErrorResult(err), &body) != nil || body.Error.Code != c.code || body.Error.Retryable != c.retryable {
				t.Fatalf("ErrorResult %s: want code %s retryable %v", tools.ErrorResult(err), c.code, c.retryable)
			}
			var te *tools.TaskError
			if errors.As(err, &te) && (te.TaskID != "t1" || te.Tool != c.tool) {
				t.Errorf("TaskError %+v", te)
			}
			if c.sentinel == tools.ErrTaskFinished && (te == nil || te.State == "") {
				t.Errorf("a finished task's error does not carry its state: %+v", te)
			}
			if c.sentinel != memory.ErrUnavailable && c.cancelErr == nil && len(f.tasks.cancels) != 0 {
				t.Errorf("canceled %v, want no cancel", f.tasks.cancels)
			}
		})
	}
}

func TestCancelTaskRequestsTheCancel(t *testing.T) {
	f := newFixture(t, nil)
	f.tasks.put(info("t1", nil))
	got, err := f.call(t, "cancel_task", `{"task_id":"t1"}`)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := got.(map[string]any)
	if m["taskId"] != "t1" || m["status"] != tools.StatusCancelRequested || m["memoryKey"] != "session/s1/a2a/Echo/t1/result" ||
		!strings.Contains(m["note"].(string), "notification") {
		t.Fatalf("cancel_task = %v", got)
	}
	if len(f.tasks.cancels) != 1 || f.tasks.cancels[0] != "t1" {
		t.Fatalf("cancels %v, want [t1]", f.tasks.cancels)
	}
}
