// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// Version is the version of the NDJSON protocol this host speaks
// (docs/ndjson.md). The host announces it in its hello frame; a child
// announces its own in its agent.card frame, and a child that speaks a
// later version is refused.
const Version = 1

// The frame types (the "type" field of every line).
const (
	// host → child
	TypeHello        = "hello"
	TypeTaskRequest  = "task.request"
	TypeTaskCancel   = "task.cancel"
	TypeInvokeResult = "invoke.result"
	// child → host
	TypeAgentCard    = "agent.card"
	TypeTaskProgress = "task.progress"
	TypeTaskResult   = "task.result"
	TypeTaskError    = "task.error"
	TypeInvoke       = "invoke"
	// TypeTaskQuestion ends a request's turn with a question to the caller
	// (input-required, or auth-required with an auth need); the caller's
	// answer comes as a later task.request of the same task.
	TypeTaskQuestion = "task.question"
)

// Errors about frames and cards.
var (
	// ErrBadCard: an agent card (the child's agent.card frame or --card) is not usable.
	ErrBadCard = errors.New("execbridge: bad agent card")
	// ErrVersion: the child speaks a protocol version this host does not.
	ErrVersion = errors.New("execbridge: unsupported protocol version")
)

// Frame is one line of the protocol: a JSON object whose Type says which
// of the other fields it uses (docs/ndjson.md lists them per type).
type Frame struct {
	Type    string `json:"type"`
	Version int    `json:"version,omitempty"` // hello, agent.card
	// Card is the agent card (agent.card), in the well-known-agents.json shape.
	Card        json.RawMessage `json:"card,omitempty"`
	Concurrency int             `json:"concurrency,omitempty"` // hello

	RequestID string `json:"request_id,omitempty"`
	// task.request
	TaskID    string          `json:"task_id,omitempty"`
	Skill     string          `json:"skill,omitempty"` // also invoke
	Text      string          `json:"text,omitempty"`  // also task.result, invoke, invoke.result
	Input     json.RawMessage `json:"input,omitempty"` // also invoke
	SessionID string          `json:"session_id,omitempty"`
	Caller    string          `json:"caller,omitempty"`
	Deadline  string          `json:"deadline,omitempty"` // RFC 3339
	// Turn is 0 on a task's first request (omitted) and n on the request
	// carrying the caller's n-th answer; History is the task's earlier
	// messages, oldest first (the first request, the question, the answer,
	// …); ContextID and ContextHistory are the task's context and the
	// messages of the context's earlier tasks.
	Turn           int              `json:"turn,omitempty"`
	History        []HistoryMessage `json:"history,omitempty"`
	ContextID      string           `json:"context_id,omitempty"`
	ContextHistory []HistoryMessage `json:"context_history,omitempty"`
	// CallerContext is the part of its conversation the caller sent with
	// the task (absent when it sent none, empty when it chose nothing);
	// AllowedTools, when present, the only tools the caller lets the
	// program use for the task (of its own; empty: none); MaxContextTokens
	// the caller's cap of its model context's token budget.
	CallerContext    []a2a.ContextMessage `json:"caller_context,omitzero"`
	AllowedTools     []string             `json:"allowed_tools,omitzero"`
	MaxContextTokens int                  `json:"max_context_tokens,omitempty"`
	// task.question: Text is the question; Options the answers offered,
	// InputSchema the JSON Schema of a structured answer, Auth what the
	// caller must authenticate with (auth-required).
	Options     []a2a.Option    `json:"options,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Auth        *a2a.AuthNeed   `json:"auth,omitempty"`
	// task.progress; Message is also the message of task.error and a failed invoke.result.
	Message string   `json:"message,omitempty"`
	Percent *float64 `json:"percent,omitempty"`
	// task.result, invoke.result
	Data       json.RawMessage `json:"data,omitempty"`
	Confidence string          `json:"confidence,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
	// Status is a task.result's SUCCESS (default) or PARTIAL; an invoke.result's SUCCESS, PARTIAL or ERROR.
	Status string `json:"status,omitempty"`
	// Code is the error code of task.error and of a failed invoke.result.
	Code string `json:"code,omitempty"`
	// invoke, invoke.result
	CallID    string `json:"call_id,omitempty"`
	Agent     string `json:"agent,omitempty"`
	TimeoutMs int64  `json:"timeout_ms,omitempty"` // invoke
	SubTaskID string `json:"sub_task_id,omitempty"`
}

// HistoryMessage is one message of a task.request's history or
// context_history, as a program reads it.
type HistoryMessage struct {
	// Role is "user" (the caller's) or "agent".
	Role string `json:"role"`
	// Text is the message's text parts, joined by newlines.
	Text string `json:"text,omitempty"`
	// Data is the value of the message's data part, or an array of the
	// values when it has several.
	Data json.RawMessage `json:"data,omitempty"`
	// Omitted, on the first message of a history that was too long, is how
	// many older messages it stands for (they were left out).
	Omitted int `json:"omitted,omitempty"`
}

// historyOf is msgs as a program reads them.
func historyOf(msgs []*a2a.Message) []HistoryMessage {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]HistoryMessage, 0, len(msgs))
	for _, m := range msgs {
		if m == nil {
			continue
		}
		role := "user"
		if m.Role == a2a.MessageRoleAgent {
			role = "agent"
		}
		out = append(out, HistoryMessage{Role: role, Text: a2a.MessageText(m), Data: dataOfParts(m.Parts), Omitted: a2a.OmittedCount(m)})
	}
	return out
}

// deadlineLayout is RFC 3339 with milliseconds: every language's parser reads it.
const deadlineLayout = "2006-01-02T15:04:05.000Z07:00"

// formatDeadline renders t for a task.request.
func formatDeadline(t time.Time) string { return t.UTC().Format(deadlineLayout) }

// Card is an agent card in the well-known-agents.json shape: what a child
// sends in its agent.card frame and what --card files hold.
type Card = directory.WellKnownAgent

// ParseCard decodes and checks a card: one JSON object in the
// well-known-agents.json shape (unknown fields refused), with a valid agent
// name, at least one skill, valid and unique skill ids, and valid input
// schemas. A problem is an error wrapping ErrBadCard that names it.
func ParseCard(raw []byte) (*Card, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: want a JSON object with agentName, description, version and skills", ErrBadCard)
	}
	var c Card
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadCard, strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := checkCard(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkCard checks what a bridged agent needs of its card: a valid name,
// skills with valid, unique ids, and input schemas of listed skills that compile.
func checkCard(c *Card) error {
	if err := a2a.ValidateAgentName(c.AgentName); err != nil {
		return fmt.Errorf("%w: agentName: %w", ErrBadCard, err)
	}
	if len(c.Skills) == 0 {
		return fmt.Errorf("%w: agent %q lists no skills: a bridged agent serves the skills its card lists", ErrBadCard, c.AgentName)
	}
	seen := map[string]int{}
	for i, s := range c.Skills {
		if err := a2a.ValidateSkillID(s.ID); err != nil {
			return fmt.Errorf("%w: agent %q: skills[%d]: %w", ErrBadCard, c.AgentName, i, err)
		}
		if j, dup := seen[s.ID]; dup {
			return fmt.Errorf("%w: agent %q: skills[%d]: duplicate skill id %q (also skills[%d])", ErrBadCard, c.AgentName, i, s.ID, j)
		}
		seen[s.ID] = i
	}
	if err := a2a.ValidateInputSchemas("inputSchemas", c.InputSchemas, c.Card().Skills); err != nil {
		return fmt.Errorf("%w: agent %q: %w", ErrBadCard, c.AgentName, err)
	}
	for _, id := range slices.Sorted(maps.Keys(c.InputSchemas)) {
		if _, err := schema.Compile(c.InputSchemas[id]); err != nil {
			return fmt.Errorf("%w: agent %q: inputSchemas[%q]: %w", ErrBadCard, c.AgentName, id, err)
		}
	}
	return nil
}

// MaxCardFileBytes bounds the card file of --card; a longer one, or a path
// that is not a regular file (a FIFO, /dev/zero), is refused unread.
const MaxCardFileBytes = 1 << 20

// LoadCard reads the card file of --card: one card object, or a
// well-known-agents.json array holding exactly one.
func LoadCard(path string) (*Card, error) {
	data, err := fileread.Read(path, MaxCardFileBytes)
	if err != nil {
		return nil, fmt.Errorf("execbridge: read card file: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		agents, err := directory.ParseWellKnown(path, data)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCard, err)
		}
		if len(agents) != 1 {
			return nil, fmt.Errorf("%w: %s holds %d agents, want exactly one", ErrBadCard, path, len(agents))
		}
		if err := checkCard(&agents[0]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &agents[0], nil
	}
	c, err := ParseCard(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// decodeFrame decodes one line. It returns a reason (for the protocol
// violation log) when the line is not a JSON object with a type.
func decodeFrame(line []byte) (*Frame, string) {
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		return nil, "not a JSON object: " + strings.TrimPrefix(err.Error(), "json: ")
	}
	if f.Type == "" {
		return nil, "no \"type\" field"
	}
	return &f, ""
}

// result turns a task.result frame into the handler's result; a bad field
// is an error naming it.
func resultOf(f *Frame) (*resultFields, error) {
	r := &resultFields{status: a2a.StatusSuccess}
	switch s := a2a.ResultStatus(strings.ToUpper(f.Status)); s {
	case "", a2a.StatusSuccess:
	case a2a.StatusPartial:
		r.status = s
	default:
		return nil, fmt.Errorf("task.result: status %q: want SUCCESS or PARTIAL (a failure is a task.error)", f.Status)
	}
	if f.Confidence != "" {
		c := a2a.Confidence(strings.ToUpper(f.Confidence))
		switch c {
		case a2a.ConfidenceHigh, a2a.ConfidenceMedium, a2a.ConfidenceLow, a2a.ConfidenceSpeculative:
			r.confidence = c
		default:
			return nil, fmt.Errorf("task.result: confidence %q: want HIGH, MEDIUM, LOW or SPECULATIVE", f.Confidence)
		}
	}
	if len(f.Data) > 0 && string(f.Data) != "null" {
		var v any
		if err := json.Unmarshal(f.Data, &v); err != nil {
			return nil, fmt.Errorf("task.result: data: %w", err)
		}
		r.data = v
	}
	if f.Text == "" && r.data == nil {
		return nil, errors.New("task.result: neither text nor data")
	}
	return r, nil
}

// questionOf turns a task.question frame into the question of a turn's
// end, checked as the wire checks it (taskID and agent name the task); a
// bad field is an error naming it.
func questionOf(f *Frame, taskID, agent string) (*a2a.Question, error) {
	q := &a2a.Question{Text: f.Text, Options: f.Options, Auth: f.Auth}
	if s := bytes.TrimSpace(f.InputSchema); len(s) > 0 && string(s) != "null" {
		q.InputSchema = s
	}
	state := a2a.TaskStateInputRequired
	if q.Auth != nil {
		state = a2a.TaskStateAuthRequired
	}
	r := &a2a.TaskResult{TaskID: taskID, Agent: agent, State: state, Question: q, Time: time.Now()}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("task.question: %w", err)
	}
	return q, nil
}

// resultFields are the checked fields of a task.result.
type resultFields struct {
	status     a2a.ResultStatus
	confidence a2a.Confidence
	data       any
}

// errorOf turns a task.error frame into the task's typed error; an unknown
// or missing code becomes EXECUTION_FAILED (the code named in the message).
func errorOf(f *Frame) *a2a.Error {
	code := a2a.ErrorCode(strings.ToUpper(f.Code))
	msg := f.Message
	if msg == "" {
		msg = "the agent failed without a message"
	}
	if !code.Valid() {
		if f.Code != "" {
			msg = fmt.Sprintf("%s (unknown error code %q)", msg, f.Code)
		}
		code = a2a.CodeExecutionFailed
	}
	return &a2a.Error{Code: code, Message: msg, Retryable: code.DefaultRetryable()}
}
