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
	// AgentCard describes an agent and its skills.
	AgentCard = spec.AgentCard
	// AgentSkill is one capability on an agent card.
	AgentSkill = spec.AgentSkill
)

// Task states (A2A v1.0).
const (
	StateSubmitted     = spec.TaskStateSubmitted
	StateWorking       = spec.TaskStateWorking
	StateInputRequired = spec.TaskStateInputRequired
	StateAuthRequired  = spec.TaskStateAuthRequired
	StateCompleted     = spec.TaskStateCompleted
	StateCanceled      = spec.TaskStateCanceled
	StateFailed        = spec.TaskStateFailed
	StateRejected      = spec.TaskStateRejected
)

// Message roles (A2A v1.0).
const (
	RoleUser  = spec.MessageRoleUser
	RoleAgent = spec.MessageRoleAgent
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
	case StateSubmitted, StateWorking, StateInputRequired, StateAuthRequired,
		StateCompleted, StateCanceled, StateFailed, StateRejected:
		return true
	}
	return false
}

// validateMessage checks an A2A message has a role and non-empty, well-formed parts.
func validateMessage(field string, m *Message) error {
	if m == nil {
		return fieldErr(field, ErrMissingField, "required")
	}
	if m.Role != RoleUser && m.Role != RoleAgent {
		return fieldErr(field+".role", ErrInvalidField, fmt.Sprintf("must be %s or %s, got %q", RoleUser, RoleAgent, string(m.Role)))
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
