// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
)

var askedIn = regexp.MustCompile(`asks a question in task ([A-Za-z0-9_-]+)`)

// booker is the scripted model of a session in which SampleAgent's confirm
// skill asks whether to go ahead. It starts the task on the user's request;
// on the question's notification it answers it itself (option yes) when
// the user's request already said "I confirm", else it asks the user; the
// user's next message is passed on with the task id the waiting questions
// list (the loop's system message); on the task's end it reads the result
// and reports it. It decides by what the request holds.
func booker(t *testing.T, agentName string) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		last := req.Last()
		first := ""
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, "[") {
				first = m.Content
				break
			}
		}
		switch {
		case last.Role == llm.RoleUser && strings.Contains(last.Content, "asks a question"):
			id := askedIn.FindStringSubmatch(last.Content)[1]
			if strings.Contains(first, "I confirm") {
				return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"task_id": id, "option": "yes"})}}
			}
			return llmtest.Reply{Content: "Before I book it: do you confirm the booking (yes or no)?"}
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "[Agent"):
			m := keyInNotification.FindStringSubmatch(last.Content)
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("get_from_working_memory", map[string]string{"key": m[1]})}}
		case last.Role == llm.RoleUser && last.Content == "yes":
			var waiting string
			for _, m := range req.Messages {
				if m.Role == llm.RoleSystem && strings.HasPrefix(m.Content, "Questions of agents that wait for an answer") {
					waiting = m.Content
				}
			}
			found := askedIn.FindStringSubmatch(waiting)
			if found == nil {
				t.Errorf("the user's answer came with no waiting question listed: %+v", req.Messages)
				return llmtest.Reply{Content: "?"}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"task_id": found[1], "message": last.Content})}}
		case last.Role == llm.RoleUser:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{
				"agent_name": agentName, "skill": sample.SkillConfirm, "message": "book the room for Friday"})}}
		case last.Role == llm.RoleTool && strings.Contains(last.Content, `"status":"submitted"`):
			return llmtest.Reply{Content: "I am booking it."}
		case last.Role == llm.RoleTool && strings.Contains(last.Content, `"status":"answered"`):
			return llmtest.Reply{Content: "Confirmed; finishing the booking."}
		case last.Role == llm.RoleTool:
			var res caller.StoredResult
			if err := json.Unmarshal([]byte(last.Content), &res); err != nil {
				t.Errorf("not a stored result: %s", last.Content)
			}
			return llmtest.Reply{Content: "Done: " + res.Text()}
		}
		t.Errorf("unexpected request; last message %+v", last)
		return llmtest.Reply{Content: "?"}
	}
}

// answeredTurns are the tool results of the conversation that answered a
// sub-task's question.
func answeredTurns(turns []memory.Turn) []memory.Turn {
	var out []memory.Turn
	for _, t := range turns {
		if t.Meta[chat.MetaAnsweredTask] != "" {
			out = append(out, t)
		}
	}
	return out
}

// An agent asks a question the conversation already answers: the model
// answers it itself (invoke_agent with task_id), the task's next turn ends
// it, and the conversation settles with the result, no question left.
func TestModelAnswersAnAgentsQuestion(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		s := r.open(t, llmtest.NewFunc(t, booker(t, r.sample)), r.caller, nil)
		user, err := s.Send(ctx, "Book the room for Friday; I confirm it.", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Questions) != 0 || len(s.Questions()) != 0 || len(s.Pending()) != 0 {
			t.Fatalf("settled %+v, %v; questions %v, pending %v", settled, err, s.Questions(), s.Pending())
		}
		last := settled.Answers[len(settled.Answers)-1]
		if last.Content != "Done: Confirmed: book the room for Friday" {
			t.Fatalf("answers %+v", settled.Answers)
		}
		answered := answeredTurns(r.turns(t))
		if len(answered) != 1 || answered[0].Meta[chat.MetaAnsweredTurn] != "1" {
			t.Fatalf("answer tool turns %+v, want one that started turn 1", answered)
		}
		if n := settled.Notifications; len(n) != 1 || n[0].Meta[caller.MetaOutcome] != caller.OutcomeAnswer || n[0].Meta[caller.MetaTurn] != "1" {
			t.Fatalf("notifications %+v, want the task's end on turn 1", n)
		}
	})
}

// An agent asks a question the model cannot answer: it asks the user, the
// conversation settles with the question waiting (Settled.Questions,
// Session.Questions), the user's next message is the answer, which the
// model passes on with the task id the loop lists to it, and the task ends.
func TestUserAnswersAnAgentsQuestion(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.NewFunc(t, booker(t, r.sample))
		s := r.open(t, srv, r.caller, nil)
		user, err := s.Send(ctx, "Book the room for Friday.", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Questions) != 1 {
			t.Fatalf("settled %+v, %v; want one question waiting", settled, err)
		}
		q := settled.Questions[0]
		if !strings.Contains(q.Content, "Confirm: book the room for Friday?") || q.Meta[caller.MetaOutcome] != caller.OutcomeQuestion ||
			len(s.Questions()) != 1 || len(s.Pending()) != 0 {
			t.Fatalf("question %+v; Questions %v, Pending %v", q, s.Questions(), s.Pending())
		}
		if last := settled.Answers[len(settled.Answers)-1]; !strings.Contains(last.Content, "do you confirm") {
			t.Fatalf("the model did not ask the user: %+v", settled.Answers)
		}

		yes, err := s.Send(ctx, "yes", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err = s.Wait(ctx, yes.Seq)
		if err != nil || settled.Err != nil || len(settled.Questions) != 0 || len(s.Questions()) != 0 {
			t.Fatalf("after the user's answer: settled %+v, %v", settled, err)
		}
		if last := settled.Answers[len(settled.Answers)-1]; last.Content != "Done: Confirmed: book the room for Friday" {
			t.Fatalf("answers %+v", settled.Answers)
		}
		if answered := answeredTurns(r.turns(t)); len(answered) != 1 {
			t.Fatalf("answer tool turns %+v, want one", answered)
		}
		// The waiting question was listed to the model in the run of the user's answer only.
		listed := 0
		for _, req := range srv.Requests() {
			lastUser := ""
			has := false
			for _, m := range req.Messages {
				switch {
				case m.Role == llm.RoleUser:
					lastUser = m.Content
				case m.Role == llm.RoleSystem && strings.Contains(m.Content, fmt.Sprintf("asks a question in task %s", q.Meta[caller.MetaTaskID])):
					has = true
				}
			}
			if has != (lastUser == "yes") {
				t.Errorf("a request whose last user message is %q lists the question: %v", lastUser, has)
			}
			if has {
				listed++
			}
		}
		if listed == 0 {
			t.Fatal("the waiting question was never listed to the model")
		}
	})
}
