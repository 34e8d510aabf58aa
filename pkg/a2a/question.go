// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Tasks that talk back. A task.result may end one TURN of a task instead of
// the task: with state TASK_STATE_INPUT_REQUIRED (the agent asks its caller
// a question) or TASK_STATE_AUTH_REQUIRED (it needs the caller to
// authenticate), carrying the Question. The caller answers with a new
// task.request for the same task id (Turn n, the task's History), and the
// agent's handler runs again; the task ends with a terminal state, as any
// task does. docs/tasks.md describes the lifecycle.

// Question is what an agent asks its caller when a turn of a task ends
// waiting for input (TaskResult.Question).
type Question struct {
	// Text is the question, for a person or a model. Required.
	Text string `json:"text"`
	// Options, when set, are the answers the agent offers; the caller may
	// answer with an option's ID (or its label), or with anything else the
	// question allows.
	Options []Option `json:"options,omitempty"`
	// InputSchema, when set, is the JSON Schema of the structured answer the
	// agent expects (the follow-up request's input); a JSON object.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Auth names what the agent needs for TASK_STATE_AUTH_REQUIRED; it is
	// required with that state and absent with TASK_STATE_INPUT_REQUIRED.
	Auth *AuthNeed `json:"auth,omitempty"`
}

// Option is one answer a Question offers.
type Option struct {
	// ID identifies the option in the answer: a letter or digit, then up to
	// 63 letters, digits, '_', '.' or '-'. Unique within the question.
	ID string `json:"id"`
	// Label is what a person is shown. Required.
	Label string `json:"label"`
	// Description says more about the option; optional.
	Description string `json:"description,omitempty"`
}

// AuthNeed is what an agent needs its caller to authenticate with before
// it can go on (TASK_STATE_AUTH_REQUIRED).
type AuthNeed struct {
	// Scheme is the kind of credential: "oauth2", "apiKey", "bearer",
	// "basic", or another well-known name. Required.
	Scheme string `json:"scheme"`
	// Resource names what the credential is for (a service, a host).
	Resource string `json:"resource,omitempty"`
	// Scopes are the permissions asked for, when the scheme has them.
	Scopes []string `json:"scopes,omitempty"`
	// URL is where the caller (or its user) authenticates, when there is one.
	URL string `json:"url,omitempty"`
}

// Bounds of a question.
const (
	// MaxQuestionOptions is the most options a question may offer.
	MaxQuestionOptions = 64
	// MaxQuestionTextBytes bounds a question's text, an option's label and
	// description, and each field of an AuthNeed.
	MaxQuestionTextBytes = 16 << 10
	// MaxHistoryMessages bounds TaskRequest.History and
	// TaskRequest.ContextHistory (each); the byte size is bounded by the
	// codec's message limit.
	MaxHistoryMessages = 256
)

// MetadataOmitted is the metadata key of the marker message that stands
// for the oldest messages left out of a bounded history (TaskRequest.History,
// ContextHistory): its value is their number.
const MetadataOmitted = "a2abusOmitted"

// OmittedCount is how many left-out messages the marker m stands for, 0
// when m is no marker.
func OmittedCount(m *Message) int {
	if m == nil || m.Metadata == nil {
		return 0
	}
	switch n := m.Metadata[MetadataOmitted].(type) {
	case int:
		return n
	case float64: // read back from JSON
		return int(n)
	}
	return 0
}

// WaitsForInput reports whether a turn that ended in state s waits for the
// caller: TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED.
func WaitsForInput(s TaskState) bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// EndsTurn reports whether state s ends a turn of a task: a terminal state
// (which also ends the task) or one that waits for the caller's input.
func EndsTurn(s TaskState) bool { return s.Terminal() || WaitsForInput(s) }

// NewContextID returns a new, random context id (a UUID).
func NewContextID() string { return NewID() }

// ValidateContextID reports whether id is a context id a caller can keep a
// history for: the rule of a session id (letters, digits, '_', '.', ':' and
// '-', at most 128, no ".."), safe inside a memory key. The wire does not
// check a request's contextId: an agent takes any.
func ValidateContextID(id string) error {
	if strings.Contains(id, "..") {
		return fmt.Errorf("%w: context id %q must not contain \"..\"", ErrInvalidName, id)
	}
	return matchID("context id", id, sessionIDPattern)
}

// Validate checks the question for a turn that ends in state: a text, well
// formed and unique options, an input schema that is a JSON object, and an
// Auth exactly when state is TASK_STATE_AUTH_REQUIRED. field names the
// question in errors ("question").
func (q *Question) validate(field string, state TaskState) error {
	switch {
	case q.Text == "":
		return fieldErr(field+".text", ErrMissingField, "required")
	case len(q.Text) > MaxQuestionTextBytes:
		return fieldErr(field+".text", ErrInvalidField, fmt.Sprintf("at most %d bytes, got %d", MaxQuestionTextBytes, len(q.Text)))
	case len(q.Options) > MaxQuestionOptions:
		return fieldErr(field+".options", ErrInvalidField, fmt.Sprintf("at most %d options, got %d", MaxQuestionOptions, len(q.Options)))
	}
	seen := make(map[string]bool, len(q.Options))
	for i, o := range q.Options {
		f := fmt.Sprintf("%s.options[%d]", field, i)
		if err := nameErr(f+".id", matchID("option id", o.ID, skillIDPattern)); err != nil {
			return err
		}
		if seen[o.ID] {
			return fieldErr(f+".id", ErrInvalidField, fmt.Sprintf("duplicate option %q", o.ID))
		}
		seen[o.ID] = true
		if o.Label == "" {
			return fieldErr(f+".label", ErrMissingField, "required")
		}
		if len(o.Label) > MaxQuestionTextBytes || len(o.Description) > MaxQuestionTextBytes {
			return fieldErr(f, ErrInvalidField, fmt.Sprintf("label and description are at most %d bytes each", MaxQuestionTextBytes))
		}
	}
	if len(q.InputSchema) > 0 {
		raw := bytes.TrimSpace(q.InputSchema)
		switch {
		case len(raw) > MaxInputSchemaBytes:
			return fieldErr(field+".inputSchema", ErrInvalidField, fmt.Sprintf("at most %d bytes, got %d", MaxInputSchemaBytes, len(raw)))
		case !json.Valid(raw):
			return fieldErr(field+".inputSchema", ErrInvalidField, "not valid JSON")
		case raw[0] != '{':
			return fieldErr(field+".inputSchema", ErrInvalidField, "must be a JSON object (a JSON Schema)")
		}
	}
	switch {
	case state == TaskStateAuthRequired && q.Auth == nil:
		return fieldErr(field+".auth", ErrMissingField, "required with state "+string(TaskStateAuthRequired))
	case state != TaskStateAuthRequired && q.Auth != nil:
		return fieldErr(field+".auth", ErrInvalidField, "only with state "+string(TaskStateAuthRequired))
	case q.Auth != nil:
		return q.Auth.validate(field + ".auth")
	}
	return nil
}

// validate checks the scheme is set and every field is within its bound.
func (n *AuthNeed) validate(field string) error {
	if n.Scheme == "" {
		return fieldErr(field+".scheme", ErrMissingField, "required")
	}
	size := len(n.Scheme) + len(n.Resource) + len(n.URL)
	for _, s := range n.Scopes {
		size += len(s)
	}
	if size > MaxQuestionTextBytes {
		return fieldErr(field, ErrInvalidField, fmt.Sprintf("at most %d bytes in all, got %d", MaxQuestionTextBytes, size))
	}
	return nil
}

// validateHistory checks a list of earlier messages: at most
// MaxHistoryMessages, each a valid message.
func validateHistory(field string, msgs []*Message) error {
	if len(msgs) > MaxHistoryMessages {
		return fieldErr(field, ErrInvalidField, fmt.Sprintf("at most %d messages, got %d", MaxHistoryMessages, len(msgs)))
	}
	for i, m := range msgs {
		if err := validateMessage(fmt.Sprintf("%s[%d]", field, i), m); err != nil {
			return err
		}
	}
	return nil
}
