// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"fmt"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
)

// The A2A v1.0 data model, re-exported so users need one import.
type (
	// Message is an A2A message: a role and its parts.
	Message = spec.Message
	// Part is one piece of a message or artifact: text, raw bytes, data or a URL.
	Part = spec.Part
	// Artifact is a named output of a task, made of parts.
	Artifact = spec.Artifact
	// TaskState is the A2A state of a task.
	TaskState = spec.TaskState
	// AgentCard describes an agent and its skills. On the bus it travels in
	// an Announcement, and Announcement.Validate says what a card must have:
	//
	//   - Name, a valid agent name (ValidateAgentName): the agent's bus name;
	//   - for each entry of Skills, an ID that is a valid skill id
	//     (ValidateSkillID), unique on the card.
	//
	// Everything else is optional, Skills included (but a caller that vets
	// its target refuses a skill the card does not list, SKILL_NOT_SUPPORTED).
	// a2abus reads Description and Version (a result's agentVersion) and each
	// skill's Name and Description (listings and search). The other fields
	// (supportedInterfaces, capabilities, the input and output modes, provider,
	// security schemes and requirements, signatures, URLs, a skill's tags,
	// examples and modes) are stored with the card as sent, and a2abus acts
	// on none of them: when announcements are signed, the envelope's
	// a2a-signature header authenticates them, not the card's signatures.
	// docs/wire-protocol.md has a minimal card.
	AgentCard = spec.AgentCard
	// AgentSkill is one capability on an agent card.
	AgentSkill = spec.AgentSkill
)

// Task states (A2A v1.0), under a2a-go's names so code reads the same with
// either import.
const (
	// TaskStateSubmitted means the task is accepted and waits to run.
	TaskStateSubmitted = spec.TaskStateSubmitted
	// TaskStateWorking means the task is running.
	TaskStateWorking = spec.TaskStateWorking
	// TaskStateInputRequired means the agent needs more input from the caller.
	TaskStateInputRequired = spec.TaskStateInputRequired
	// TaskStateAuthRequired means the agent needs the caller to authenticate.
	TaskStateAuthRequired = spec.TaskStateAuthRequired
	// TaskStateCompleted means the task finished with a result (terminal).
	TaskStateCompleted = spec.TaskStateCompleted
	// TaskStateCanceled means the task was canceled (terminal).
	TaskStateCanceled = spec.TaskStateCanceled
	// TaskStateFailed means the task failed (terminal).
	TaskStateFailed = spec.TaskStateFailed
	// TaskStateRejected means the agent refused the task (terminal).
	TaskStateRejected = spec.TaskStateRejected
)

// Message roles (A2A v1.0), under a2a-go's names.
const (
	// MessageRoleUser marks a message from the caller.
	MessageRoleUser = spec.MessageRoleUser
	// MessageRoleAgent marks a message from the agent.
	MessageRoleAgent = spec.MessageRoleAgent
)

// ProtocolVersion is the A2A version carried in the a2a-version header.
const ProtocolVersion = string(spec.Version)

// NewTextMessage builds a message with one text part.
func NewTextMessage(role spec.MessageRole, text string) *Message {
	return spec.NewMessage(role, spec.NewTextPart(text))
}

// NewTextPart returns a text part.
func NewTextPart(text string) *Part { return spec.NewTextPart(text) }

// NewDataPart returns a structured-data part.
func NewDataPart(v any) *Part { return spec.NewDataPart(v) }

// MessageText joins the text parts of m with newlines; "" for nil.
func MessageText(m *Message) string {
	if m == nil {
		return ""
	}
	var out string
	for _, p := range m.Parts {
		if p == nil {
			continue
		}
		if t, ok := p.Content.(spec.Text); ok {
			if out != "" {
				out += "\n"
			}
			out += string(t)
		}
	}
	return out
}

// validState reports whether s is one of the known A2A task states.
func validState(s TaskState) bool {
	switch s {
	case TaskStateSubmitted, TaskStateWorking, TaskStateInputRequired, TaskStateAuthRequired,
		TaskStateCompleted, TaskStateCanceled, TaskStateFailed, TaskStateRejected:
		return true
	}
	return false
}

// validateMessage checks an A2A message has a role and non-empty, well-formed parts.
func validateMessage(field string, m *Message) error {
	if m == nil {
		return fieldErr(field, ErrMissingField, "required")
	}
	if m.Role != MessageRoleUser && m.Role != MessageRoleAgent {
		return fieldErr(field+".role", ErrInvalidField, fmt.Sprintf("must be %s or %s, got %q", MessageRoleUser, MessageRoleAgent, string(m.Role)))
	}
	if len(m.Parts) == 0 {
		return fieldErr(field+".parts", ErrMissingField, "at least one part is required")
	}
	return validateParts(func() string { return field }, m.Parts)
}

// validateParts names the first part without content. Its field is named
// (by field, the parts' owner) only for the error: validation allocates
// nothing on the way through.
func validateParts(field func() string, parts spec.ContentParts) error {
	for i, p := range parts {
		if p == nil || p.Content == nil {
			return fieldErr(fmt.Sprintf("%s.parts[%d]", field(), i), ErrMissingField, "part has no content")
		}
	}
	return nil
}

func validateArtifacts(field string, arts []*Artifact) error {
	for i, a := range arts {
		f := func() string { return fmt.Sprintf("%s[%d]", field, i) }
		switch {
		case a == nil:
			return fieldErr(f(), ErrMissingField, "artifact is null")
		case a.ID == "":
			return fieldErr(f()+".artifactId", ErrMissingField, "required")
		case len(a.Parts) == 0:
			return fieldErr(f()+".parts", ErrMissingField, "at least one part is required")
		}
		if err := validateParts(f, a.Parts); err != nil {
			return err
		}
	}
	return nil
}
