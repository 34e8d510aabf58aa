// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"fmt"
	"time"
)

// Payload is the body of one bus message; each kind has its own type.
type Payload interface {
	// Kind is the message kind of the payload.
	Kind() Kind
	// Validate reports the first missing or invalid field as a *FieldError.
	Validate() error
	// taskID is the correlation id of the payload ("" when it has none).
	taskID() string
}

// MaxCallChain bounds the call chain carried by a request.
const MaxCallChain = 64

// TaskRequest asks an agent to run one skill (kind task.request).
type TaskRequest struct {
	TaskID    string `json:"taskId"`
	ContextID string `json:"contextId,omitempty"`
	SessionID string `json:"sessionId"`
	Caller    string `json:"caller"`
	Target    string `json:"target"`
	Skill     string `json:"skill"`
	// Message is the A2A message the caller sends.
	Message *Message `json:"message"`
	// Input is optional structured input (any JSON value).
	Input    json.RawMessage `json:"input,omitempty"`
	Priority Priority        `json:"priority,omitempty"`
	// Deadline is when the result is due at the latest; the task is not
	// started after it.
	Deadline time.Time `json:"deadline"`
	// StartBy, when set, bounds the wait in the queue apart from the run:
	// no agent takes the task (its first delivery) after it (the answer is
	// EXPIRED_IN_QUEUE), and an agent that takes it runs it for at most
	// RunTimeout() from then (Deadline minus StartBy), never past Deadline.
	// Zero (an older caller): Deadline bounds the wait and the run together.
	StartBy time.Time `json:"startBy,omitzero"`
	// CorrelationID groups the calls of one workflow.
	CorrelationID string `json:"correlationId,omitempty"`
	// Handoff is context passed through from the caller untouched.
	Handoff json.RawMessage `json:"handoff,omitempty"`
	// CallChain is the agent names from the origin to the caller.
	CallChain []string `json:"callChain,omitempty"`
	// AllowNestedCalls false forbids the target to call other agents for this task; nil means allowed.
	AllowNestedCalls *bool `json:"allowNestedCalls,omitempty"`
	// Stream asks for status updates (working, progress) before the final
	// reply, as A2A's message/stream does; without it the agent sends the
	// final reply only, as for message/send.
	Stream    bool      `json:"stream,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitempty"`
	// Turn is 0 for the task's first request and n for the request that
	// carries the caller's n-th answer to a question of the agent (the
	// same task id); an agent echoes it on its answer (TaskResult.Turn).
	Turn int `json:"turn,omitempty"`
	// History is the task's earlier messages, oldest first: the first
	// request's message, the agent's question, the caller's answer, … up
	// to (not including) Message. Empty on turn 0. When the whole history
	// does not fit the message size limit, the oldest messages are dropped
	// and the first one left is a marker saying how many were.
	History []*Message `json:"history,omitempty"`
	// ContextHistory is the messages of earlier tasks in the same context
	// (ContextID), oldest first: each task's request message and its final
	// answer, bounded as History is.
	ContextHistory []*Message `json:"contextHistory,omitempty"`
	// CallerContext is the part of the caller's own conversation it chose
	// to send with the task (callercontext.go); nil when it sent none.
	CallerContext *CallerContext `json:"callerContext,omitempty"`
	// AllowedTools, when not nil, narrows the tools the agent may use for
	// this task to those of its own that it names (never more); an empty
	// list allows none. nil leaves the agent's own.
	AllowedTools []string `json:"allowedTools,omitzero"`
	// MaxContextTokens, when above 0, caps the token budget of the agent's
	// model context for this task: the agent uses the smaller of it and
	// its own.
	MaxContextTokens int `json:"maxContextTokens,omitempty"`
}

// TakeBy is when the request may be taken from its queue at the latest:
// StartBy, or Deadline for a request without one.
func (r *TaskRequest) TakeBy() time.Time {
	if r.StartBy.IsZero() {
		return r.Deadline
	}
	return r.StartBy
}

// RunTimeout is how long an agent may run the task once it took it
// (Deadline minus StartBy); 0 for a request without StartBy, whose run
// ends at Deadline.
func (r *TaskRequest) RunTimeout() time.Duration {
	if r.StartBy.IsZero() {
		return 0
	}
	return r.Deadline.Sub(r.StartBy)
}

// Kind is task.request.
func (*TaskRequest) Kind() Kind       { return KindTaskRequest }
func (r *TaskRequest) taskID() string { return r.TaskID }

// Validate checks every required field and the names in the call chain.
func (r *TaskRequest) Validate() error {
	checks := []error{
		nameErr("taskId", ValidateTaskID(r.TaskID)),
		nameErr("sessionId", ValidateSessionID(r.SessionID)),
		nameErr("caller", ValidateAgentName(r.Caller)),
		nameErr("target", ValidateAgentName(r.Target)),
		nameErr("skill", ValidateSkillID(r.Skill)),
		validateMessage("message", r.Message),
		validateRaw("input", r.Input),
		validateRaw("handoff", r.Handoff),
		validateHistory("history", r.History),
		validateHistory("contextHistory", r.ContextHistory),
		r.validateCallerContext(),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if _, err := ParsePriority(string(r.Priority)); err != nil {
		return fieldErr("priority", ErrInvalidField, err.Error())
	}
	if r.Deadline.IsZero() {
		return fieldErr("deadline", ErrMissingField, "required")
	}
	if !r.StartBy.IsZero() && r.StartBy.After(r.Deadline) {
		return fieldErr("startBy", ErrInvalidField, fmt.Sprintf("startBy %s is after the deadline %s",
			r.StartBy.Format(time.RFC3339Nano), r.Deadline.Format(time.RFC3339Nano)))
	}
	if r.Turn < 0 {
		return fieldErr("turn", ErrInvalidField, fmt.Sprintf("must not be negative, got %d", r.Turn))
	}
	if len(r.CallChain) > MaxCallChain {
		return fieldErr("callChain", ErrInvalidField, fmt.Sprintf("at most %d entries, got %d", MaxCallChain, len(r.CallChain)))
	}
	for i, name := range r.CallChain {
		if err := ValidateAgentName(name); err != nil {
			return nameErr(fmt.Sprintf("callChain[%d]", i), err)
		}
	}
	return nil
}

// TaskStatus is a progress update of a running task (kind task.status).
type TaskStatus struct {
	TaskID string    `json:"taskId"`
	Agent  string    `json:"agent"`
	State  TaskState `json:"state"`
	// Message is an optional human-readable update.
	Message *Message `json:"message,omitempty"`
	// Progress is an optional fraction done, 0..1.
	Progress *float64  `json:"progress,omitempty"`
	Time     time.Time `json:"time"`
}

// Kind is task.status.
func (*TaskStatus) Kind() Kind       { return KindTaskStatus }
func (s *TaskStatus) taskID() string { return s.TaskID }

// Validate checks ids, the state and the progress range.
func (s *TaskStatus) Validate() error {
	if err := validateTaskAgent(s.TaskID, s.Agent); err != nil {
		return err
	}
	if !validState(s.State) {
		return fieldErr("state", ErrInvalidField, fmt.Sprintf("unknown task state %q", string(s.State)))
	}
	if s.Message != nil {
		if err := validateMessage("message", s.Message); err != nil {
			return err
		}
	}
	if s.Progress != nil && !(*s.Progress >= 0 && *s.Progress <= 1) {
		return fieldErr("progress", ErrInvalidField, fmt.Sprintf("must be within 0..1, got %v", *s.Progress))
	}
	return nil
}

// ResultStatus is the request/response contract's outcome of a result.
type ResultStatus string

// Result statuses and their A2A states (ResultStatus.State): SUCCESS →
// completed, PARTIAL → completed, ERROR → failed, TIMEOUT → failed.
const (
	StatusSuccess ResultStatus = "SUCCESS"
	StatusPartial ResultStatus = "PARTIAL"
	StatusError   ResultStatus = "ERROR"
	StatusTimeout ResultStatus = "TIMEOUT"
)

// Confidence is how sure the agent is of its result.
type Confidence string

// Confidence levels.
const (
	ConfidenceHigh        Confidence = "HIGH"
	ConfidenceMedium      Confidence = "MEDIUM"
	ConfidenceLow         Confidence = "LOW"
	ConfidenceSpeculative Confidence = "SPECULATIVE"
)

// ResultMetadata describes how a result was produced.
type ResultMetadata struct {
	ProcessingTimeMs int64          `json:"processingTimeMs,omitempty"`
	AgentVersion     string         `json:"agentVersion,omitempty"`
	TokensUsed       int64          `json:"tokensUsed,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// TaskResult is the outcome of a task (kind task.result): the message and
// every artifact, not just the first text part. It is the end of the task
// with a terminal state, or the end of one turn of it when the agent asks
// its caller something: state TASK_STATE_INPUT_REQUIRED or
// TASK_STATE_AUTH_REQUIRED with the Question (and no Status).
type TaskResult struct {
	TaskID     string         `json:"taskId"`
	Agent      string         `json:"agent"`
	State      TaskState      `json:"state"`
	Status     ResultStatus   `json:"status,omitempty"`
	Message    *Message       `json:"message,omitempty"`
	Artifacts  []*Artifact    `json:"artifacts,omitempty"`
	Confidence Confidence     `json:"confidence,omitempty"`
	Warnings   []string       `json:"warnings,omitempty"`
	Metadata   ResultMetadata `json:"metadata"`
	Time       time.Time      `json:"time"`
	// Question is what the agent asks, with state TASK_STATE_INPUT_REQUIRED
	// or TASK_STATE_AUTH_REQUIRED, and only with those.
	Question *Question `json:"question,omitempty"`
	// Turn is the request's Turn this answers (0 on the first).
	Turn int `json:"turn,omitempty"`
	// Attempt is the delivery attempt of the request this answers, when
	// above 1 (omitted on a first attempt): the caller knows an answer of
	// a task run again may not be the first.
	Attempt int `json:"attempt,omitempty"`
}

// Kind is task.result.
func (*TaskResult) Kind() Kind       { return KindTaskResult }
func (r *TaskResult) taskID() string { return r.TaskID }

// Validate checks ids, a state that ends the turn, the contract enums and
// the content: a question exactly with the states that wait for input (and
// then no status), else a message or an artifact.
func (r *TaskResult) Validate() error {
	if err := validateTaskAgent(r.TaskID, r.Agent); err != nil {
		return err
	}
	if !validState(r.State) || !EndsTurn(r.State) {
		return fieldErr("state", ErrInvalidField, fmt.Sprintf("must be a terminal task state or one that waits for input, got %q", string(r.State)))
	}
	if r.Turn < 0 || r.Attempt < 0 {
		return fieldErr("turn", ErrInvalidField, fmt.Sprintf("turn and attempt must not be negative, got %d and %d", r.Turn, r.Attempt))
	}
	waits := WaitsForInput(r.State)
	switch {
	case waits && r.Question == nil:
		return fieldErr("question", ErrMissingField, "required with state "+string(r.State))
	case !waits && r.Question != nil:
		return fieldErr("question", ErrInvalidField, "only with state "+string(TaskStateInputRequired)+" or "+string(TaskStateAuthRequired)+", got "+string(r.State))
	case waits && r.Status != "":
		return fieldErr("status", ErrInvalidField, fmt.Sprintf("a turn that waits for input has no status, got %q", string(r.Status)))
	case waits:
		if err := r.Question.validate("question", r.State); err != nil {
			return err
		}
	}
	switch {
	case r.Status == "":
	case !r.Status.Valid():
		return fieldErr("status", ErrInvalidField, fmt.Sprintf("must be SUCCESS, PARTIAL, ERROR or TIMEOUT, got %q", string(r.Status)))
	case r.Status.State() != r.State:
		return fieldErr("state", ErrInvalidField, fmt.Sprintf("status %s ends in state %s, got %s", r.Status, r.Status.State(), r.State))
	}
	switch r.Confidence {
	case "", ConfidenceHigh, ConfidenceMedium, ConfidenceLow, ConfidenceSpeculative:
	default:
		return fieldErr("confidence", ErrInvalidField, fmt.Sprintf("must be HIGH, MEDIUM, LOW or SPECULATIVE, got %q", string(r.Confidence)))
	}
	if r.Message == nil && len(r.Artifacts) == 0 && r.Question == nil {
		return fieldErr("message", ErrMissingField, "a result needs a message or at least one artifact")
	}
	if r.Message != nil {
		if err := validateMessage("message", r.Message); err != nil {
			return err
		}
	}
	return validateArtifacts("artifacts", r.Artifacts)
}

// TaskError is the failure of a task (kind task.error).
type TaskError struct {
	TaskID    string         `json:"taskId"`
	Agent     string         `json:"agent"`
	State     TaskState      `json:"state"`
	Code      ErrorCode      `json:"code"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details,omitempty"`
	Time      time.Time      `json:"time"`
	// Turn is the request's Turn this answers (0 on the first).
	Turn int `json:"turn,omitempty"`
	// Attempt is the delivery attempt of the request this answers, when
	// above 1 (see TaskResult.Attempt).
	Attempt int `json:"attempt,omitempty"`
}

// Kind is task.error.
func (*TaskError) Kind() Kind       { return KindTaskError }
func (e *TaskError) taskID() string { return e.TaskID }

// Validate checks ids, a terminal state, a well-formed code and a message.
func (e *TaskError) Validate() error {
	if err := validateTaskAgent(e.TaskID, e.Agent); err != nil {
		return err
	}
	if !validState(e.State) || !e.State.Terminal() {
		return fieldErr("state", ErrInvalidField, fmt.Sprintf("must be a terminal task state, got %q", string(e.State)))
	}
	if e.Code == "" {
		return fieldErr("code", ErrMissingField, "required")
	}
	if !e.Code.Valid() {
		return fieldErr("code", ErrInvalidField, fmt.Sprintf("must match %s, got %q", errorCodePattern, string(e.Code)))
	}
	if e.Message == "" {
		return fieldErr("message", ErrMissingField, "required")
	}
	if e.Turn < 0 || e.Attempt < 0 {
		return fieldErr("turn", ErrInvalidField, fmt.Sprintf("turn and attempt must not be negative, got %d and %d", e.Turn, e.Attempt))
	}
	return nil
}

// Status is the contract status of the failure: TIMEOUT for code TIMEOUT, else ERROR.
func (e *TaskError) Status() ResultStatus { return StatusFor(e.State, e.Code) }

// AsError returns the failure as an *Error.
func (e *TaskError) AsError() *Error {
	return &Error{Code: e.Code, Message: e.Message, Retryable: e.Retryable}
}

// TaskCancel asks every instance of the target to cancel a task (kind task.cancel).
type TaskCancel struct {
	TaskID string    `json:"taskId"`
	Caller string    `json:"caller"`
	Target string    `json:"target"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// Kind is task.cancel.
func (*TaskCancel) Kind() Kind       { return KindTaskCancel }
func (c *TaskCancel) taskID() string { return c.TaskID }

// Validate checks the ids.
func (c *TaskCancel) Validate() error {
	if err := nameErr("taskId", ValidateTaskID(c.TaskID)); err != nil {
		return err
	}
	if err := nameErr("caller", ValidateAgentName(c.Caller)); err != nil {
		return err
	}
	return nameErr("target", ValidateAgentName(c.Target))
}

// Announcement carries an agent card on discovery.announce (kind agent.card).
type Announcement struct {
	Card       *AgentCard `json:"card"`
	InstanceID string     `json:"instanceId"`
	Time       time.Time  `json:"time"`
	// Deregistering is true when the instance is stopping.
	Deregistering bool `json:"deregistering,omitempty"`
	// InputSchemas maps skill ids of the card to the JSON Schema of their
	// structured input (an A2A skill has no field for it); optional.
	InputSchemas map[string]json.RawMessage `json:"inputSchemas,omitempty"`
}

// Kind is agent.card.
func (*Announcement) Kind() Kind     { return KindAgentCard }
func (*Announcement) taskID() string { return "" }

// Validate checks the card's name and skills and the instance id. A card
// must have a Name that is a valid agent name, and each of its skills an ID
// that is a valid skill id, unique on the card; no other card field is
// required or checked (see AgentCard). The announcement must have a valid
// InstanceID and a Time, and its InputSchemas (ValidateInputSchemas) may
// only name skills of the card.
func (a *Announcement) Validate() error {
	if a.Card == nil {
		return fieldErr("card", ErrMissingField, "required")
	}
	if err := nameErr("card.name", ValidateAgentName(a.Card.Name)); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, s := range a.Card.Skills {
		f := fmt.Sprintf("card.skills[%d].id", i)
		if err := nameErr(f, ValidateSkillID(s.ID)); err != nil {
			return err
		}
		if seen[s.ID] {
			return fieldErr(f, ErrInvalidField, fmt.Sprintf("duplicate skill %q", s.ID))
		}
		seen[s.ID] = true
	}
	if err := ValidateInputSchemas("inputSchemas", a.InputSchemas, a.Card.Skills); err != nil {
		return err
	}
	if err := nameErr("instanceId", ValidateInstanceID(a.InstanceID)); err != nil {
		return err
	}
	if a.Time.IsZero() {
		return fieldErr("time", ErrMissingField, "required")
	}
	return nil
}

// DiscoveryQuery asks every running agent to announce at once (kind discovery.query).
type DiscoveryQuery struct {
	// From names the asking process (an agent name), optional.
	From string    `json:"from,omitempty"`
	Time time.Time `json:"time"`
}

// Kind is discovery.query.
func (*DiscoveryQuery) Kind() Kind     { return KindDiscoveryQuery }
func (*DiscoveryQuery) taskID() string { return "" }

// Validate checks the optional sender name.
func (q *DiscoveryQuery) Validate() error {
	if q.From == "" {
		return nil
	}
	return nameErr("from", ValidateAgentName(q.From))
}

// newPayload returns an empty payload of kind k.
func newPayload(k Kind) Payload {
	switch k {
	case KindTaskRequest:
		return &TaskRequest{}
	case KindTaskStatus:
		return &TaskStatus{}
	case KindTaskResult:
		return &TaskResult{}
	case KindTaskError:
		return &TaskError{}
	case KindTaskCancel:
		return &TaskCancel{}
	case KindAgentCard:
		return &Announcement{}
	case KindDiscoveryQuery:
		return &DiscoveryQuery{}
	}
	return nil
}

func validateTaskAgent(taskID, agent string) error {
	if err := nameErr("taskId", ValidateTaskID(taskID)); err != nil {
		return err
	}
	return nameErr("agent", ValidateAgentName(agent))
}

func validateRaw(field string, raw json.RawMessage) error {
	if len(raw) > 0 && !json.Valid(raw) {
		return fieldErr(field, ErrInvalidField, "not valid JSON")
	}
	return nil
}
