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

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// askWorld is a running caller and a Clerk agent whose skills talk back:
//   - "book" asks which room (options "1" Small, "2" Large) and answers "booked: <answer>";
//   - "count" asks how many, expecting {"n": integer}, and answers "counted: <input>";
//   - "recall" answers with the texts of its context's earlier messages;
//   - "hold" asks, and on its answer runs until canceled.
type askWorld struct {
	caller *caller.Caller
	clerk  string
}

func newAskWorld(t *testing.T, w *testworld.World) *askWorld {
	t.Helper()
	a := &askWorld{clerk: w.N("Clerk")}
	ag, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: a.clerk, Version: "1.0"}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	handlers := map[string]agent.Handler{
		"book": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			if task.Turn() == 0 {
				return agent.Ask("which room?", a2a.Option{ID: "1", Label: "Small"}, a2a.Option{ID: "2", Label: "Large", Description: "for 12"}), nil
			}
			return agent.TextResult("booked: " + task.Text()), nil
		},
		"count": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			if task.Turn() == 0 {
				r := agent.Ask("how many?")
				r.Question.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
				return r, nil
			}
			return agent.TextResult("counted: " + string(task.Request.Input)), nil
		},
		"recall": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			var said []string
			for _, m := range task.ContextHistory() {
				said = append(said, a2a.MessageText(m))
			}
			return agent.TextResult(fmt.Sprintf("%d earlier: %s", len(said), strings.Join(said, " | "))), nil
		},
		"hold": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			if task.Turn() == 0 {
				return agent.Ask("go on?"), nil
			}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
	for skill, h := range handlers {
		if err := ag.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, ag)
	a.caller = a.newCaller(t, w, w.N("Primary"))
	return a
}

func (a *askWorld) newCaller(t *testing.T, w *testworld.World, name string) *caller.Caller {
	t.Helper()
	c, err := caller.New(caller.Options{Name: name, Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	return c
}

func (a *askWorld) set(t *testing.T, w *testworld.World, c *caller.Caller, session string) *tools.Set {
	t.Helper()
	set, err := tools.New(tools.Deps{Caller: c, Agents: &fakeLister{}, Memory: w.Memory, SessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	return set
}

// codeOf is the code of err as the model reads it (ErrorResult).
func codeOf(err error) string {
	var out struct {
		Error struct{ Code string }
	}
	_ = json.Unmarshal(tools.ErrorResult(err), &out)
	return out.Error.Code
}

// refused calls a tool that must fail with code, its message containing want.
func refused(t *testing.T, ctx context.Context, set *tools.Set, tool, args, code, want string) {
	t.Helper()
	_, err := set.Dispatch(ctx, tool, json.RawMessage(args))
	if err == nil || codeOf(err) != code || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s(%s) = %v (code %s), want %s containing %q", tool, args, err, codeOf(err), code, want)
	}
}

// A model answers an agent's question through invoke_agent with task_id:
// the waited call shows the question (text, options, when it is due),
// task_status shows it too with the turn, an option the question does not
// offer is INVALID_INPUT, the answer picked by option id ends the task on
// turn 1, and a second answer is TASK_FINISHED; a structured answer is
// checked against the question's schema; a later task given the context id
// gets the context's earlier messages.
func TestInvokeAgentAnswersAQuestion(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		a := newAskWorld(t, w)
		set := a.set(t, w, a.caller, "conv-q")

		var r tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"book","message":"a room for friday","wait":true}`, &r)
		q := r.Question
		if r.State != tools.StateInputRequired || r.Turn != 0 || q == nil || q.Text != "which room?" || len(q.Options) != 2 ||
			q.Options[1].ID != "2" || q.Options[1].Label != "Large" || q.AnswerBy == "" || r.ContextID == "" || r.Result != "" ||
			!strings.Contains(r.Note, "task_id '"+r.TaskID+"'") || set.Delivered(r.TaskID) {
			t.Fatalf("a waited call whose agent asks = %+v (question %+v)", r, q)
		}
		var st tools.TaskStatusResult
		dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
		if st.State != tools.StateInputRequired || st.Finished || st.Turn != 0 || st.Question == nil || st.Question.Text != "which room?" ||
			len(st.Question.Options) != 2 || st.SecondsLeft == nil || *st.SecondsLeft < 60 || !strings.Contains(st.Note, "invoke_agent with task_id") {
			t.Fatalf("task_status of a waiting task = %+v", st)
		}
		answer := func(extra string) string { return `{"task_id":"` + r.TaskID + `"` + extra + `}` }
		refused(t, ctx, set, "invoke_agent", answer(`,"option":"3"`), "INVALID_INPUT", "its options are: 1, 2")
		refused(t, ctx, set, "invoke_agent", answer(``), "INVALID_ARGUMENTS", `missing required argument "message"`)
		refused(t, ctx, set, "invoke_agent", answer(`,"message":"x","context_id":"c1"`), "INVALID_ARGUMENTS", "omit context_id")
		refused(t, ctx, set, "invoke_agent", answer(`,"message":"x","agent_name":"Someone"`), "INVALID_ARGUMENTS", "omit agent_name")
		refused(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"book","message":"x","option":"1"}`, "INVALID_ARGUMENTS", "give it with the task_id")

		var done tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", answer(`,"option":"2","wait":true`), &done)
		if done.Status != tools.StatusAnswered || done.State != tools.StateCompleted || done.Result != "booked: 2" || done.Turn != 1 ||
			done.TaskID != r.TaskID || done.ContextID != r.ContextID || done.Question != nil {
			t.Fatalf("the waited answer = %+v", done)
		}
		refused(t, ctx, set, "invoke_agent", answer(`,"message":"1"`), "TASK_FINISHED", r.TaskID)
		dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
		if st.State != tools.StateCompleted || st.Turn != 1 || st.Question != nil || st.Preview != "booked: 2" {
			t.Fatalf("task_status of the answered task = %+v", st)
		}

		// A structured answer, checked against the question's schema; answered without waiting.
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"count","message":"chairs","wait":true}`, &r)
		if r.Question == nil || string(r.Question.InputSchema) == "" {
			t.Fatalf("a question with an input schema = %+v", r)
		}
		refused(t, ctx, set, "invoke_agent", answer(`,"message":"three"`), "INVALID_INPUT", "required")
		dispatch(t, ctx, set, "invoke_agent", answer(`,"message":"three","input":{"n":3}`), &done)
		if done.Status != tools.StatusAnswered || done.Turn != 1 || done.State != "" || !strings.Contains(done.Note, "notification") {
			t.Fatalf("an answer without wait = %+v", done)
		}
		out, err := a.caller.Wait(ctx, r.TaskID, nil)
		if err != nil || out.Result.Text() != `counted: {"n":3}` {
			t.Fatalf("the structured answer's outcome = %+v, %v", out, err)
		}

		// A follow-up in the context of the booking.
		var follow tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"recall","message":"what did I book?","context_id":"`+
			done.ContextID+`","wait":true}`, &follow)
		if follow.ContextID != done.ContextID || follow.Result != `2 earlier: chairs | counted: {"n":3}` {
			t.Fatalf("a follow-up in the context = %+v", follow)
		}
		refused(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"recall","message":"x","context_id":"a..b"}`, "INVALID_ARGUMENTS", "context_id")
	})
}

// An answer that cannot be applied is a tool error with its code, never a
// silent drop: to a task that runs (INVALID_STATE), to another caller's
// task (FORBIDDEN), to a task of another conversation (OTHER_CONVERSATION),
// to no known task (UNKNOWN_TASK). A waiting task is canceled by cancel_task.
func TestInvokeAgentAnswerRefusals(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		a := newAskWorld(t, w)
		set := a.set(t, w, a.caller, "conv-r")
		var r tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"hold","message":"x","wait":true}`, &r)
		if r.State != tools.StateInputRequired {
			t.Fatalf("hold = %+v", r)
		}
		refused(t, ctx, a.set(t, w, a.caller, "conv-other"), "invoke_agent", `{"task_id":"`+r.TaskID+`","message":"yes"}`, "OTHER_CONVERSATION", r.TaskID)
		var done tools.InvokeResult
		dispatch(t, ctx, set, "invoke_agent", `{"task_id":"`+r.TaskID+`","message":"yes"}`, &done)
		var st tools.TaskStatusResult
		testenv.Eventually(t, "the answered task runs its turn 1", func() bool {
			dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
			return st.State == tools.StateWorking && st.Turn == 1
		}, testenv.Explain(func() string { return fmt.Sprintf("%+v", st) }))
		refused(t, ctx, set, "invoke_agent", `{"task_id":"`+r.TaskID+`","message":"again"}`, "INVALID_STATE", r.TaskID)
		var cr tools.CancelResult
		dispatch(t, ctx, set, "cancel_task", `{"task_id":"`+r.TaskID+`"}`, &cr)

		// Another caller's waiting task.
		other := a.newCaller(t, w, w.N("Other"))
		inv, err := other.Call(ctx, caller.Request{Target: a.clerk, Skill: "book", Text: "x", SessionID: "conv-r2"}, nil)
		if err != nil || !inv.WaitingForInput() {
			t.Fatalf("another caller's task = %+v, %v", inv, err)
		}
		refused(t, ctx, set, "invoke_agent", `{"task_id":"`+inv.TaskID+`","message":"1"}`, "FORBIDDEN", inv.TaskID)
		refused(t, ctx, set, "invoke_agent", `{"task_id":"no-such-task","message":"1"}`, "UNKNOWN_TASK", "no-such-task")

		// cancel_task ends a task that waits for an answer.
		dispatch(t, ctx, set, "invoke_agent", `{"agent_name":"`+a.clerk+`","skill":"book","message":"x","wait":true}`, &r)
		dispatch(t, ctx, set, "cancel_task", `{"task_id":"`+r.TaskID+`"}`, &cr)
		if !strings.Contains(cr.Note, "waited for an answer") {
			t.Fatalf("cancel_task of a waiting task = %+v", cr)
		}
		dispatch(t, ctx, set, "task_status", `{"task_id":"`+r.TaskID+`"}`, &st)
		if st.State != tools.StateCanceled || !st.Finished {
			t.Fatalf("a waiting task canceled: %+v", st)
		}
		_, err = set.Dispatch(ctx, "invoke_agent", json.RawMessage(`{"task_id":"`+r.TaskID+`","message":"1"}`))
		if codeOf(err) != "TASK_FINISHED" || errors.Is(err, tools.ErrInvalidArguments) {
			t.Fatalf("an answer to a canceled task = %v", err)
		}
	})
}
