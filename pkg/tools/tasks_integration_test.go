// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// busWorld is a running caller and a Worker agent with the skills the task
// tools are tried on:
//   - "step" reports progress ("halfway", 0.5), then waits for a release and answers "done: <text>";
//   - "fail" fails with EXECUTION_FAILED;
//   - "hang" runs until it is canceled.
type busWorld struct {
	caller  *caller.Caller
	worker  string
	release chan struct{}
	mu      sync.Mutex
	updates map[string][]string // task id → status texts seen by Deps.OnStatus
}

func newBusWorld(t *testing.T, w *testworld.World) *busWorld {
	t.Helper()
	b := &busWorld{worker: w.N("Worker"), release: make(chan struct{}), updates: map[string][]string{}}
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: b.worker, Version: "1.0"}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	handlers := map[string]agent.Handler{
		"step": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			if err := task.Progress(ctx, "halfway", 0.5); err != nil {
				return nil, err
			}
			select {
			case <-b.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return agent.TextResult("done: " + task.Text()), nil
		},
		"fail": func(context.Context, *agent.Task) (*agent.Result, error) {
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "the disk is full")
		},
		"hang": func(ctx context.Context, _ *agent.Task) (*agent.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	for skill, h := range handlers {
		if err := a.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, a)
	c, err := caller.New(caller.Options{Name: w.N("Primary"), Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	b.caller = c
	return b
}

// set is the tools of a session on the world's caller, with every tool offered.
func (b *busWorld) set(t *testing.T, w *testworld.World, sessionID string) *tools.Set {
	t.Helper()
	set, err := tools.New(tools.Deps{Caller: b.caller, Agents: &fakeLister{}, Memory: w.Memory, SessionID: sessionID,
		OnStatus: func(taskID string, st *a2a.TaskStatus) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.updates[taskID] = append(b.updates[taskID], stateName(st)+":"+a2a.MessageText(st.Message))
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	if got := names(set); len(got) != 5 {
		t.Fatalf("a Set on a *caller.Caller offers %v, want all five tools", got)
	}
	return set
}

func (b *busWorld) seen(taskID string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.updates[taskID]...)
}

func stateName(st *a2a.TaskStatus) string {
	return strings.ToLower(strings.TrimPrefix(string(st.State), "TASK_STATE_"))
}

// dispatch calls a tool and decodes its result into v, zeroed first.
func dispatch(t *testing.T, ctx context.Context, set *tools.Set, tool, args string, v any) {
	t.Helper()
	out, err := set.Dispatch(ctx, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool, args, err)
	}
	reflect.ValueOf(v).Elem().SetZero()
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s returned %s: %v", tool, out, err)
	}
}

// TestTaskStatusAndCancelOnTheBus follows a task as the model would: it is
// working with the agent's status message, then completed with a preview;
// cancel_task refuses it then, cancels a running one, and neither tool sees
// another conversation's task.
func TestTaskStatusAndCancelOnTheBus(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		b := newBusWorld(t, w)
		set := b.set(t, w, "conv-a")

		var inv tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"step","message":"job","timeout_seconds":30}`, &inv)
		taskArgs := `{"task_id":"` + inv.TaskID + `"}`
		var st tools.TaskStatusResult
		testenv.Eventually(t, "task_status shows the agent's status message", func() bool {
			dispatch(t, ctx, set, "task_status", taskArgs, &st)
			return st.StatusMessage == "halfway"
		}, testenv.Explain(func() string { return st.State + " " + st.StatusMessage }))
		if st.State != tools.StateWorking || st.Finished || st.Agent != b.worker || st.Skill != "step" || st.MemoryKey != inv.MemoryKey ||
			st.Progress == nil || *st.Progress != 0.5 || st.SecondsLeft == nil || *st.SecondsLeft < 1 || *st.SecondsLeft > 30 {
			t.Fatalf("running task: %+v", st)
		}
		if got := b.seen(inv.TaskID); !contains(got, "working:halfway") {
			t.Fatalf("OnStatus saw %v, want working:halfway", got)
		}

		// Another conversation on the same caller sees nothing of it.
		other := b.set(t, w, "conv-b")
		for _, tool := range []string{"task_status", "cancel_task"} {
			if _, err := other.Dispatch(ctx, tool, json.RawMessage(taskArgs)); !errors.Is(err, tools.ErrOtherSession) {
				t.Fatalf("%s from another conversation: %v, want ErrOtherSession", tool, err)
			}
		}
		if _, err := set.Dispatch(ctx, "task_status", json.RawMessage(`{"task_id":"no-such-task"}`)); !errors.Is(err, tools.ErrUnknownTask) {
			t.Fatalf("task_status(unknown) = %v", err)
		}

		close(b.release)
		testenv.Eventually(t, "task_status shows the task completed", func() bool {
			dispatch(t, ctx, set, "task_status", taskArgs, &st)
			return st.Finished
		})
		if st.State != tools.StateCompleted || st.Preview != "done: job" || st.StatusMessage != "" || st.SecondsLeft != nil {
			t.Fatalf("completed task: %+v", st)
		}
		_, err := set.Dispatch(ctx, "cancel_task", json.RawMessage(taskArgs))
		var te *tools.TaskError
		if !errors.As(err, &te) || !errors.Is(err, tools.ErrTaskFinished) || te.State != tools.StateCompleted {
			t.Fatalf("cancel_task of a completed task = %v", err)
		}

		// A running task is canceled: it ends as canceled, notified.
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"hang","message":"forever","timeout_seconds":60}`, &inv)
		testenv.Eventually(t, "the hanging task runs", func() bool {
			dispatch(t, ctx, set, "task_status", `{"task_id":"`+inv.TaskID+`"}`, &st)
			return st.State == tools.StateWorking
		})
		var cr tools.CancelResult
		dispatch(t, ctx, set, "cancel_task", `{"task_id":"`+inv.TaskID+`"}`, &cr)
		if cr.Status != tools.StatusCancelRequested || cr.TaskID != inv.TaskID {
			t.Fatalf("cancel_task = %+v", cr)
		}
		out, err := b.caller.Wait(ctx, inv.TaskID, nil)
		if err != nil || out.Result.State != a2a.TaskStateCanceled {
			t.Fatalf("canceled task's outcome %+v, %v", out, err)
		}
		dispatch(t, ctx, set, "task_status", `{"task_id":"`+inv.TaskID+`"}`, &st)
		if st.State != tools.StateCanceled || st.Error == nil || st.Error.Code != "CANCELED" {
			t.Fatalf("canceled task: %+v", st)
		}
		turns, err := w.Memory.Turns(ctx, "conv-a", 0, 0)
		if err != nil || len(turns) != 2 || turns[1].Meta[caller.MetaTaskID] != inv.TaskID {
			t.Fatalf("notifications %+v, %v; want the completed and the canceled task's", turns, err)
		}
	})
}

// TestInvokeAgentWaitOnTheBus calls agents with wait: the outcome comes back
// inline (completed, failed, timed out), with the status updates passed to
// Deps.OnStatus; a wait cut short by the call's context reports the task
// running and keeps following it.
func TestInvokeAgentWaitOnTheBus(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		b := newBusWorld(t, w)
		set := b.set(t, w, "conv-w")
		close(b.release)

		var r tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"step","message":"now","wait":true}`, &r)
		if r.Status != tools.StatusSubmitted || r.State != tools.StateCompleted || r.Result != "done: now" || r.Truncated || r.Error != nil ||
			!strings.Contains(r.Note, r.MemoryKey) {
			t.Fatalf("waited invoke_agent = %+v", r)
		}
		if got := b.seen(r.TaskID); !contains(got, "working:halfway") {
			t.Fatalf("OnStatus saw %v for a waited call, want working:halfway", got)
		}
		if !set.Delivered(r.TaskID) {
			t.Fatal("Delivered is false for a result returned inline")
		}
		// The result is in working memory too, and notified.
		var stored caller.StoredResult
		dispatch(t, ctx, set, "get_from_working_memory", `{"key":"`+r.MemoryKey+`"}`, &stored)
		if stored.Text() != "done: now" {
			t.Fatalf("stored result %+v", stored)
		}

		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"fail","message":"x","wait":true}`, &r)
		if r.State != tools.StateFailed || r.Error == nil || r.Error.Code != "EXECUTION_FAILED" || r.Error.Message != "the disk is full" || r.Result != "" {
			t.Fatalf("waited failing task = %+v", r)
		}

		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"hang","message":"x","wait":true,"timeout_seconds":1}`, &r)
		if r.State != tools.StateTimeout || r.Error == nil || r.Error.Code != "TIMEOUT" {
			t.Fatalf("waited task past its timeout = %+v", r)
		}

		// The call's own context ends first: the task is reported running and followed.
		short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
		defer stop()
		dispatch(t, short, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"hang","message":"x","wait":true,"timeout_seconds":30}`, &r)
		if r.State != tools.StateWorking && r.State != tools.StatePending || r.Result != "" || set.Delivered(r.TaskID) ||
			!strings.Contains(r.Note, "Do not invoke it again") {
			t.Fatalf("a wait cut short = %+v", r)
		}
		var st tools.TaskStatusResult
		testenv.Eventually(t, "the followed task is shown working", func() bool {
			dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
			return st.State == tools.StateWorking
		})
		var cr tools.CancelResult
		dispatch(t, ctx, set, "cancel_task", `{"task_id":"`+r.TaskID+`"}`, &cr)
		testenv.Eventually(t, "the canceled task ends", func() bool {
			dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
			return st.State == tools.StateCanceled
		})
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCloseStopsFollowing: Close ends the followers (twice is fine) and the
// tools keep working afterwards, waits included.
func TestCloseStopsFollowing(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		b := newBusWorld(t, w)
		set := b.set(t, w, "conv-c")
		var r tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"hang","message":"x","timeout_seconds":30}`, &r)
		var st tools.TaskStatusResult
		testenv.Eventually(t, "the followed task is shown working", func() bool {
			dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
			return st.State == tools.StateWorking
		})
		if err := set.Close(); err != nil {
			t.Fatal(err)
		}
		if err := set.Close(); err != nil {
			t.Fatal(err)
		}
		dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
		if st.State != tools.StatePending || st.Finished {
			t.Fatalf("a task no longer followed: %+v, want pending (no status known)", st)
		}
		close(b.release)
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"step","message":"after","wait":true}`, &r)
		if r.State != tools.StateCompleted || r.Result != "done: after" {
			t.Fatalf("a wait after Close = %+v", r)
		}
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+b.worker+`","skill":"step","message":"after"}`, &r)
		if r.Status != tools.StatusSubmitted {
			t.Fatalf("an invoke after Close = %+v", r)
		}
	})
}
