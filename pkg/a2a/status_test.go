// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The contract table of docs/wire-protocol.md, as code.
func TestStatusStates(t *testing.T) {
	for s, want := range map[ResultStatus]TaskState{
		StatusSuccess: TaskStateCompleted, StatusPartial: TaskStateCompleted,
		StatusError: TaskStateFailed, StatusTimeout: TaskStateFailed, "DONE": "",
	} {
		if got := s.State(); got != want {
			t.Errorf("%q.State() = %q, want %q", s, got, want)
		}
		if s.Valid() != (want != "") {
			t.Errorf("%q.Valid() = %v", s, s.Valid())
		}
	}
	for _, tc := range []struct {
		state TaskState
		code  ErrorCode
		want  ResultStatus
	}{
		{TaskStateCompleted, "", StatusSuccess},
		{TaskStateFailed, CodeTimeout, StatusTimeout},
		{TaskStateFailed, CodeExpiredInQueue, StatusTimeout},
		{TaskStateFailed, CodeExecutionFailed, StatusError},
		{TaskStateFailed, "", StatusError},
		{TaskStateRejected, CodeInvalidInput, StatusError},
		{TaskStateCanceled, CodeCanceled, StatusError},
		{TaskStateWorking, CodeTimeout, ""},
		{"bogus", "", ""},
	} {
		if got := StatusFor(tc.state, tc.code); got != tc.want {
			t.Errorf("StatusFor(%q, %q) = %q, want %q", tc.state, tc.code, got, tc.want)
		}
	}
	te := &TaskError{State: TaskStateFailed, Code: CodeTimeout}
	if te.Status() != StatusTimeout {
		t.Errorf("a TIMEOUT task.error has status %q", te.Status())
	}
}

func TestResultStatusMustAgreeWithState(t *testing.T) {
	base := TaskResult{TaskID: "t-1", Agent: "A", Message: NewTextMessage(MessageRoleAgent, "x"), Time: testNow}
	for _, tc := range []struct {
		state  TaskState
		status ResultStatus
		ok     bool
	}{
		{TaskStateCompleted, StatusSuccess, true},
		{TaskStateCompleted, StatusPartial, true},
		{TaskStateFailed, StatusError, true},
		{TaskStateFailed, StatusTimeout, true},
		{TaskStateCompleted, "", true},
		{TaskStateFailed, "", true},
		{TaskStateFailed, StatusSuccess, false},
		{TaskStateCompleted, StatusTimeout, false},
		{TaskStateCanceled, StatusError, false},
	} {
		r := base
		r.State, r.Status = tc.state, tc.status
		err := r.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("state %s status %q: Validate() = %v, want ok=%v", tc.state, tc.status, err, tc.ok)
		}
	}
}

func TestValidateInputSchemas(t *testing.T) {
	skills := []AgentSkill{{ID: "npv"}, {ID: "echo"}}
	big := `{"description":"` + strings.Repeat("x", MaxInputSchemaBytes) + `"}`
	for _, tc := range []struct {
		name    string
		schemas map[string]json.RawMessage
		field   string // "" when valid
		reason  string
	}{
		{"none", nil, "", ""},
		{"valid", map[string]json.RawMessage{"npv": json.RawMessage(` {"type":"object"} `)}, "", ""},
		{"unknown skill", map[string]json.RawMessage{"nope": json.RawMessage(`{}`)}, `inputSchemas["nope"]`, "not a skill of the card"},
		{"null", map[string]json.RawMessage{"npv": json.RawMessage(`null`)}, `inputSchemas["npv"]`, "required"},
		{"empty", map[string]json.RawMessage{"npv": nil}, `inputSchemas["npv"]`, "required"},
		{"not JSON", map[string]json.RawMessage{"npv": json.RawMessage(`{"type":`)}, `inputSchemas["npv"]`, "not valid JSON"},
		{"not an object", map[string]json.RawMessage{"npv": json.RawMessage(`true`)}, `inputSchemas["npv"]`, "JSON object"},
		{"too large", map[string]json.RawMessage{"npv": json.RawMessage(big)}, `inputSchemas["npv"]`, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateInputSchemas("inputSchemas", tc.schemas, skills)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Reason, tc.reason) {
				t.Fatalf("got %v, want a FieldError on %s saying %q", err, tc.field, tc.reason)
			}
		})
	}
}

// An announcement's schemas travel through the codec and are validated on decode.
func TestAnnouncementInputSchemas(t *testing.T) {
	c := testCodec()
	a := &Announcement{Card: &AgentCard{Name: "A", Skills: []AgentSkill{{ID: "npv"}}}, InstanceID: "i", Time: testNow,
		InputSchemas: map[string]json.RawMessage{"npv": json.RawMessage(`{"type":"object"}`)}}
	env, err := c.Encode(a, Trace{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Decode(env)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.(*Announcement).InputSchemas["npv"]); got != `{"type":"object"}` {
		t.Fatalf("schema after a round trip: %s", got)
	}
	a.InputSchemas = map[string]json.RawMessage{"other": json.RawMessage(`{}`)}
	if _, err := c.Encode(a, Trace{}); !errors.Is(err, ErrInvalidField) {
		t.Fatalf("a schema for a skill not on the card encoded: %v", err)
	}
}
