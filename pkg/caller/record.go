// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Record is the durable state of a task this caller started, kept in
// working memory so any replica can handle its responses and a restarted
// caller loses nothing.
type Record struct {
	TaskID    string `json:"taskId"`
	Caller    string `json:"caller"`
	Target    string `json:"target"`
	Skill     string `json:"skill"`
	SessionID string `json:"sessionId"`
	// ContextID is the task's context (a2a contextId).
	ContextID string    `json:"contextId,omitempty"`
	MemoryKey string    `json:"memoryKey"`
	Deadline  time.Time `json:"deadline"`
	// StartBy is when the first request may be taken from its queue at the
	// latest (its wait bound; queuewait.go); zero when the deadline bounds
	// the wait and the run together.
	StartBy time.Time `json:"startBy,omitzero"`
	// SweepFrom is, with StartBy, when the sweeper first looks at the task:
	// StartBy plus Options.TakeGrace.
	SweepFrom time.Time `json:"sweepFrom,omitzero"`
	CreatedAt time.Time `json:"createdAt"`
	// Chain is the call chain of the request (origin … this caller), for the call history.
	Chain []string `json:"chain,omitempty"`
	// Message is the first request's message: the start of the task's
	// history, and the request the context's history keeps.
	Message *a2a.Message `json:"message,omitempty"`
	// ContextHistory is the context's history the first request carried
	// (the earlier tasks of the context); every later turn carries it too,
	// and the task's outcome is appended to it.
	ContextHistory []*a2a.Message `json:"contextHistory,omitempty"`
	// What every later turn's request repeats of the first.
	Priority         a2a.Priority    `json:"priority,omitempty"`
	CorrelationID    string          `json:"correlationId,omitempty"`
	Handoff          json.RawMessage `json:"handoff,omitempty"`
	AllowNestedCalls *bool           `json:"allowNestedCalls,omitempty"`
	Stream           bool            `json:"stream,omitempty"`
	// The caller's context and narrowing the first request carried (the
	// context's key when it went to working memory), repeated by every
	// later turn.
	CallerContext    *a2a.CallerContext `json:"callerContext,omitempty"`
	AllowedTools     []string           `json:"allowedTools,omitzero"`
	MaxContextTokens int                `json:"maxContextTokens,omitempty"`

	freshSession bool                            // the session was made up for this task (sessions.go); not stored
	also         func(taskID string) []memory.Op // Request.RecordAlso; not stored
}

// encode is the JSON of r, as json.Marshal writes it but through the
// codec's mirrors of its A2A fields: it is on every call's path, so it is
// written by hand (storedjson.go) unless encoding/json must say why it
// cannot be written.
func (r *Record) encode() ([]byte, error) {
	if b, ok := r.appendJSON(); ok {
		return b, nil
	}
	return r.encodeStd()
}

// encodeStd is encode through encoding/json.
func (r *Record) encodeStd() ([]byte, error) {
	type fields Record
	return json.Marshal(struct {
		*fields
		Message        any `json:"message,omitempty"`
		ContextHistory any `json:"contextHistory,omitempty"`
	}{(*fields)(r), a2a.MessageMirror(r.Message), a2a.MessagesMirror(r.ContextHistory)})
}

// invocation is what Invoke returns for the task.
func (r *Record) invocation() Invocation {
	return Invocation{TaskID: r.TaskID, SessionID: r.SessionID, ContextID: r.ContextID, Target: r.Target, MemoryKey: r.MemoryKey, Deadline: r.Deadline, StartBy: r.StartBy}
}

// turnInvocation is what a turn of the task returns: its turn number and
// the deadline of its answer.
func (r *Record) turnInvocation(turn int, deadline time.Time) Invocation {
	inv := r.invocation()
	inv.Turn, inv.Deadline = turn, deadline
	return inv
}

// loadRecord returns the record of a task: this process's copy when it
// invoked the task, else the one in working memory; nil when there is none.
func (c *Caller) loadRecord(ctx context.Context, taskID string) (*Record, error) {
	if rec, ok := c.local.get(taskID); ok {
		return &rec, nil
	}
	key, err := memory.TaskRecordKey(c.opts.Name, taskID)
	if err != nil {
		return nil, err
	}
	var rec Record
	found, err := getJSON(ctx, c.opts.Memory, key, &rec)
	if err != nil || !found {
		return nil, err
	}
	return &rec, nil
}

// StoredResult is what the response handler stores at the memory key: the
// full outcome of a task (all artifacts, the message, metadata) or its error.
type StoredResult struct {
	TaskID     string             `json:"taskId"`
	Agent      string             `json:"agent"`
	Caller     string             `json:"caller"`
	SessionID  string             `json:"sessionId"`
	Skill      string             `json:"skill"`
	State      a2a.TaskState      `json:"state"`
	Status     a2a.ResultStatus   `json:"status,omitempty"`
	Message    *a2a.Message       `json:"message,omitempty"`
	Artifacts  []*a2a.Artifact    `json:"artifacts,omitempty"`
	Confidence a2a.Confidence     `json:"confidence,omitempty"`
	Warnings   []string           `json:"warnings,omitempty"`
	Metadata   a2a.ResultMetadata `json:"metadata"`
	Error      *a2a.Error         `json:"error,omitempty"`
	// Late is true for a result that arrived after the task had timed out.
	Late     bool      `json:"late,omitempty"`
	StoredAt time.Time `json:"storedAt"`
	// Question is what the agent asks while the task waits for input
	// (state TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED).
	Question *a2a.Question `json:"question,omitempty"`
	// Turn is the turn this outcome ended (0 for the first request).
	Turn int `json:"turn,omitempty"`
	// ContextID is the task's context.
	ContextID string `json:"contextId,omitempty"`
	// AnswerBy is, while the task waits for input, when the caller's answer
	// is due: past it the task ends TIMEOUT.
	AnswerBy time.Time `json:"answerBy,omitzero"`

	attempt   int    // the delivery attempt of the request the answer ends (TaskResult.Attempt); not stored
	once      bool   // the response was delivered to the caller the first time; not stored
	endedWait string // startTimeout or startCanceled: the task ended while it waited for an answer; not stored
	redacted  bool   // redactResult ran on it: its previews need no second pass; not stored
}

// encode is the JSON of s, as json.Marshal writes it but through the
// codec's mirrors of its A2A fields (a2a.MessageMirror): it is on every
// call's path, so it is written by hand (storedjson.go) unless
// encoding/json must say why it cannot be written.
func (s *StoredResult) encode() ([]byte, error) {
	if b, ok := s.appendJSON(); ok {
		return b, nil
	}
	return s.encodeStd()
}

// encodeStd is encode through encoding/json.
func (s *StoredResult) encodeStd() ([]byte, error) {
	type fields StoredResult
	return json.Marshal(struct {
		*fields
		State     string `json:"state"`
		Message   any    `json:"message,omitempty"`
		Artifacts any    `json:"artifacts,omitempty"`
	}{(*fields)(s), s.State.String(), a2a.MessageMirror(s.Message), a2a.ArtifactsMirror(s.Artifacts)})
}

// Failed reports whether the task did not complete.
func (s *StoredResult) Failed() bool { return s.Error != nil || s.State != a2a.TaskStateCompleted }

// Text is the result's message text, or the error message.
func (s *StoredResult) Text() string {
	if s.Error != nil {
		return s.Error.Message
	}
	return a2a.MessageText(s.Message)
}

// The caller's own state in working memory (memory/keys.go): a task's
// record (memory.TaskRecordKey), who finalized it (memory.TaskClaimKey; a
// later turn's end: memory.TaskTurnClaimKey), which real result replaced
// its TIMEOUT (memory.TaskLateClaimKey), what a task that talks back waits
// for and how its turns started (turns.go), and the index of the caller's
// unfinished tasks by deadline (Unix ms, c.pending; a task that waits for
// input by the end of the wait), from which the sweeper reads the overdue
// ones without scanning keys.

// Who finalized a task first: an answer (claimResult, then "/" and the
// answer's message id: answerClaim), the deadline sweeper, or the caller
// that withdrew a task whose request was never sent.
const (
	claimResult  = "result"
	claimTimeout = "timeout"
	claimUnsent  = "unsent"
)

// getJSON loads key into v; found is false (and err nil) when it is missing.
func getJSON(ctx context.Context, m memory.Store, key string, v any) (found bool, err error) {
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load %q: %w", key, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("decode %q: %w", key, err)
	}
	return true, nil
}
