// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A result ends a turn with a question exactly when its state waits for
// input; AUTH_REQUIRED needs what to authenticate with; a question carries
// no contract status; options and schemas are checked.
func TestValidateQuestion(t *testing.T) {
	q := func(mod func(*TaskResult)) *TaskResult {
		r := sampleQuestion()
		mod(r)
		return r
	}
	cases := []struct {
		name  string
		p     Payload
		field string
	}{
		{"input required without question", q(func(r *TaskResult) { r.Question = nil }), "question"},
		{"completed with question", q(func(r *TaskResult) { r.State = TaskStateCompleted }), "question"},
		{"question with status", q(func(r *TaskResult) { r.Status = StatusSuccess }), "status"},
		{"no text", q(func(r *TaskResult) { r.Question.Text = "" }), "question.text"},
		{"text too long", q(func(r *TaskResult) { r.Question.Text = strings.Repeat("x", MaxQuestionTextBytes+1) }), "question.text"},
		{"option id", q(func(r *TaskResult) { r.Question.Options[1].ID = "a b" }), "question.options[1].id"},
		{"duplicate option", q(func(r *TaskResult) { r.Question.Options[1].ID = "1" }), "question.options[1].id"},
		{"option label", q(func(r *TaskResult) { r.Question.Options[0].Label = "" }), "question.options[0].label"},
		{"too many options", q(func(r *TaskResult) { r.Question.Options = make([]Option, MaxQuestionOptions+1) }), "question.options"},
		{"schema not an object", q(func(r *TaskResult) { r.Question.InputSchema = json.RawMessage(`[1]`) }), "question.inputSchema"},
		{"auth without auth state", q(func(r *TaskResult) { r.Question.Auth = &AuthNeed{Scheme: "basic"} }), "question.auth"},
		{"auth state without auth", q(func(r *TaskResult) { r.State = TaskStateAuthRequired }), "question.auth"},
		{"auth without scheme", q(func(r *TaskResult) { r.State, r.Question.Auth = TaskStateAuthRequired, &AuthNeed{} }), "question.auth.scheme"},
		{"negative turn", q(func(r *TaskResult) { r.Turn = -1 }), "turn"},
		{"negative attempt", &TaskError{TaskID: "t", Agent: "A", State: TaskStateFailed, Code: CodeTimeout, Message: "m", Attempt: -1}, "turn"},
		{"request negative turn", func() Payload { r := sampleTurnRequest(); r.Turn = -1; return r }(), "turn"},
		{"request history message", func() Payload { r := sampleTurnRequest(); r.History[2] = nil; return r }(), "history[2]"},
		{"request context history", func() Payload {
			r := sampleTurnRequest()
			r.ContextHistory[0].Role = ""
			return r
		}(), "contextHistory[0].role"},
		{"request too much history", func() Payload {
			r := sampleTurnRequest()
			r.History = make([]*Message, MaxHistoryMessages+1)
			return r
		}(), "history"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if fe.Field != tc.field {
				t.Fatalf("field = %q, want %q (%v)", fe.Field, tc.field, err)
			}
		})
	}
	if err := sampleQuestion().Validate(); err != nil {
		t.Errorf("a valid question: %v", err)
	}
	noMessage := sampleQuestion()
	noMessage.Message = nil
	if err := noMessage.Validate(); err != nil {
		t.Errorf("a question needs no message besides itself: %v", err)
	}
}

func TestTurnStates(t *testing.T) {
	for s, want := range map[TaskState][2]bool{ // {EndsTurn, WaitsForInput}
		TaskStateSubmitted: {false, false}, TaskStateWorking: {false, false},
		TaskStateInputRequired: {true, true}, TaskStateAuthRequired: {true, true},
		TaskStateCompleted: {true, false}, TaskStateFailed: {true, false}, TaskStateCanceled: {true, false}, TaskStateRejected: {true, false},
	} {
		if EndsTurn(s) != want[0] || WaitsForInput(s) != want[1] {
			t.Errorf("%s: EndsTurn %v WaitsForInput %v, want %v", s, EndsTurn(s), WaitsForInput(s), want)
		}
	}
	id := NewContextID()
	if err := ValidateContextID(id); err != nil || NewContextID() == id {
		t.Errorf("NewContextID %q: %v (or not new)", id, err)
	}
	for _, bad := range []string{"", "a/b", "a..b", ".a", strings.Repeat("c", 129)} {
		if err := ValidateContextID(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("context id %q: %v, want ErrInvalidName", bad, err)
		}
	}
	if err := ValidateContextID("run-1.step:2"); err != nil {
		t.Errorf("a context id with '.' and ':': %v", err)
	}
	odd := sampleRequest()
	odd.ContextID = "any string an A2A peer sends"
	if err := odd.Validate(); err != nil {
		t.Errorf("the wire takes any context id: %v", err)
	}
}
