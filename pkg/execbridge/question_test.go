// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// A program asks with a task.question; the caller's answer reaches it as a
// later turn carrying the task's history (the program keeps nothing between
// turns), and it finishes the task. A second task of the same context gets
// the first one's messages as its context history.
func TestProgramAsksAndFinishesOnTheNextTurn(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		session := "asks-" + w.N("s") // a context's history is kept under its session
		out, err := r.tester.Call(ctx, caller.Request{Target: r.name, Skill: "ask", Text: "Ada", SessionID: session, Timeout: 20 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !out.WaitingForInput() || out.Result.State != a2a.TaskStateInputRequired {
			t.Fatalf("outcome = %+v, want a question (input-required)", out.Result)
		}
		q := out.Question()
		ids := []string{}
		for _, o := range q.Options {
			ids = append(ids, o.ID)
		}
		if q.Text != "How shall I greet Ada?" || !slices.Equal(ids, []string{"formal", "casual"}) || q.Options[1].Description != "first names" ||
			string(q.InputSchema) != `{"type":"object","properties":{"style":{"type":"string"}}}` {
			t.Fatalf("question = %+v, want the program's text, options and input schema", q)
		}
		if got := a2a.MessageText(out.Result.Message); got != q.Text {
			t.Errorf("the question's message = %q, want its text", got)
		}
		done, err := r.tester.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "formal", Input: []byte(`{"style":"formal"}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := done.Err(); err != nil {
			t.Fatalf("the answered task failed: %v", err)
		}
		want := "Good day, Ada (turn 1; history: user: Ada | agent: How shall I greet Ada?; context: )"
		if got := done.Result.Text(); got != want || done.Result.Turn != 1 {
			t.Fatalf("final = %q (turn %d), want %q (turn 1)", got, done.Result.Turn, want)
		}
		// The next task of the context carries the first one's request and answer.
		next, err := r.tester.Call(ctx, caller.Request{Target: r.name, Skill: "ask", Text: "Bo", SessionID: session, ContextID: out.ContextID, Timeout: 20 * time.Second}, nil)
		if err != nil || !next.WaitingForInput() {
			t.Fatalf("second task = %+v, %v; want a question", next, err)
		}
		done, err = r.tester.Continue(ctx, caller.Reply{TaskID: next.TaskID, Text: "casual", Input: []byte(`{"style":"casual"}`)}, nil)
		if err != nil || done.Err() != nil {
			t.Fatalf("second task's answer = %+v, %v", done, err)
		}
		want = "Hi, Bo (turn 1; history: user: Bo | agent: How shall I greet Bo?; context: user: Ada | agent: " +
			"Good day, Ada (turn 1; history: user: Ada | agent: How shall I greet Ada?; context: ))"
		if got := done.Result.Text(); got != want {
			t.Fatalf("second final = %q, want %q", got, want)
		}
	})
}

// A task.question with an auth need ends the turn auth-required; one the
// wire refuses fails its task with EXECUTION_FAILED naming the field.
func TestProgramAsksForAuthAndBadQuestionsFail(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		out, _ := r.call("login", "x", nil, "")
		if !out.WaitingForInput() || out.Result.State != a2a.TaskStateAuthRequired {
			t.Fatalf("login = %+v, want auth-required", out.Result)
		}
		if a := out.Question().Auth; a == nil || a.Scheme != "oauth2" || a.Resource != "calendar" || !slices.Equal(a.Scopes, []string{"read"}) {
			t.Fatalf("auth need = %+v", a)
		}
		out, _ = r.call("badask", "x", nil, "")
		wantCode(t, out, a2a.CodeExecutionFailed, `bad question: task.question: field "question.options[0].id"`)
		if out, _ := r.call("echo", "still here", nil, ""); out.Err() != nil || out.Result.Text() != "still here" {
			t.Fatalf("echo after a bad question = %+v", out.Result)
		}
	})
}

// The caller's context and narrowing reach the program in its
// task.request: the messages chosen, the tools and the budget.
func TestCallerContextReachesTheProgram(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		session := "ctx-" + w.N("s")
		for _, turn := range []memory.Turn{{Role: "user", Content: "book a table"}, {Role: "assistant", Content: "for how many?"}, {Role: "user", Content: "four"}} {
			if _, err := w.Memory.AppendTurn(ctx, session, turn); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			req  caller.Request
			want string
		}{
			{caller.Request{}, "context false [] tools false  budget 0"},
			{caller.Request{CallerContext: &caller.ContextFilter{LastMessages: 2}, AllowedTools: []string{"search", "book"}, MaxContextTokens: 700},
				"context true [assistant: for how many? | user: four] tools true search,book budget 700"},
			{caller.Request{CallerContext: &caller.ContextFilter{Roles: []string{"tool"}}, AllowedTools: []string{}},
				"context true [] tools true  budget 0"},
		} {
			req := tc.req
			req.Target, req.Skill, req.Text, req.SessionID, req.Timeout = r.name, "context", "x", session, 20*time.Second
			out, err := r.tester.Call(ctx, req, nil)
			if err != nil || out.Err() != nil {
				t.Fatalf("%+v: %+v, %v", tc.req, out, err)
			}
			if got := out.Result.Text(); got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.req, got, tc.want)
			}
		}
	})
}
