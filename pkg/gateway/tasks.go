// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"strings"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// MetadataKey is the key of the gateway's own entry in the metadata of
// tasks and events: the agent, the skill, the bus error of a failed task
// ({code, message, retryable}), a result marked late, a status's progress.
const MetadataKey = "a2abus"

// ResultArtifactID names the artifact that carries a result's message when
// the result has no artifacts of its own.
const ResultArtifactID = "result"

// pendingTask is a task whose outcome is not stored yet: submitted, as far
// as the gateway knows (status updates are not stored).
func pendingTask(inv caller.Invocation, at time.Time) *spec.Task {
	return &spec.Task{
		ID: spec.TaskID(inv.TaskID), ContextID: inv.ContextID,
		Status:   spec.TaskStatus{State: spec.TaskStateSubmitted, Timestamp: &at},
		Metadata: map[string]any{MetadataKey: taskAgent{Agent: inv.Target}},
	}
}

// taskAgent is the gateway's metadata of a task without an outcome (a
// struct: encoded as the map it stands for, without sorting its keys).
type taskAgent struct {
	Agent string `json:"agent"`
}

// infoTask is the task the caller knows: pending, or its stored outcome.
// A task whose outcome expired (memory.result_ttl) is failed, saying so.
func infoTask(info *caller.TaskInfo) *spec.Task {
	inv := caller.Invocation{TaskID: info.TaskID, ContextID: info.ContextID, Target: info.Target, SessionID: info.SessionID}
	switch {
	case info.Result != nil:
		return resultTask(inv, info.Result)
	case info.Pending:
		return pendingTask(inv, info.CreatedAt)
	}
	expired := &caller.StoredResult{TaskID: info.TaskID, Agent: info.Target, Skill: info.Skill, State: a2a.TaskStateFailed,
		Error: a2a.NewError(a2a.CodeInternal, "the task ended, but its outcome expired from working memory (memory.result_ttl)")}
	return resultTask(inv, expired)
}

// resultTask is a task with its stored outcome: its state, the agent's
// message as the status message (or the error as text), and its
// artifacts (resultArtifacts).
func resultTask(inv caller.Invocation, res *caller.StoredResult) *spec.Task {
	return &spec.Task{
		ID: spec.TaskID(inv.TaskID), ContextID: inv.ContextID,
		Status:    resultStatus(inv, res),
		Artifacts: resultArtifacts(res),
		Metadata:  resultMetadata(inv, res),
	}
}

// resultState is the A2A state of a stored outcome: the one the agent
// sent (the agent chooses CANCELED, REJECTED or FAILED for an error), or,
// when that is not a state a turn ends in, FAILED for an error and
// COMPLETED otherwise.
func resultState(res *caller.StoredResult) spec.TaskState {
	if a2a.EndsTurn(res.State) {
		return res.State
	}
	if res.Error != nil {
		return spec.TaskStateFailed
	}
	return spec.TaskStateCompleted
}

func resultStatus(inv caller.Invocation, res *caller.StoredResult) spec.TaskStatus {
	at := res.StoredAt
	if at.IsZero() {
		at = time.Now()
	}
	st := spec.TaskStatus{State: resultState(res), Timestamp: &at}
	switch {
	case res.Error != nil:
		st.Message = agentText(inv, res.Error.Error())
	case res.Message != nil:
		st.Message = forTask(inv, res.Message)
	case res.Question != nil:
		st.Message = agentText(inv, res.Question.Text)
	}
	return st
}

// resultArtifacts are the artifacts of a completed result; a result with
// none but a message gets one, ResultArtifactID, with the message's parts,
// so that a client that reads artifacts (or artifact-update events) finds
// the answer.
func resultArtifacts(res *caller.StoredResult) []*spec.Artifact {
	if res.Error != nil || a2a.WaitsForInput(res.State) {
		return nil
	}
	if len(res.Artifacts) > 0 {
		return res.Artifacts
	}
	if res.Message == nil || len(res.Message.Parts) == 0 {
		return nil
	}
	return []*spec.Artifact{{ID: ResultArtifactID, Name: ResultArtifactID, Parts: res.Message.Parts}}
}

func resultMetadata(inv caller.Invocation, res *caller.StoredResult) map[string]any {
	m := map[string]any{"agent": cmpOr(res.Agent, inv.Target)}
	if res.Skill != "" {
		m["skill"] = res.Skill
	}
	if res.Error != nil {
		m["error"] = map[string]any{"code": string(res.Error.Code), "message": res.Error.Message, "retryable": res.Error.Retryable}
	}
	if res.Late {
		m["late"] = true
	}
	if res.Question != nil {
		m["question"] = res.Question
	}
	return map[string]any{MetadataKey: m}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// forTask is a copy of m (shared with other waiters: never changed) that
// names the task and its context, from the agent.
func forTask(inv caller.Invocation, m *a2a.Message) *spec.Message {
	c := *m
	c.TaskID, c.ContextID = spec.TaskID(inv.TaskID), inv.ContextID
	if c.Role == "" {
		c.Role = spec.MessageRoleAgent
	}
	if c.ID == "" {
		c.ID = spec.NewMessageID()
	}
	return &c
}

func agentText(inv caller.Invocation, text string) *spec.Message {
	return forTask(inv, spec.NewMessage(spec.MessageRoleAgent, spec.NewTextPart(text)))
}

// statusEvent is a status update of the bus as an A2A status-update event.
func statusEvent(inv caller.Invocation, st *a2a.TaskStatus) *spec.TaskStatusUpdateEvent {
	at := st.Time
	if at.IsZero() {
		at = time.Now()
	}
	ev := &spec.TaskStatusUpdateEvent{TaskID: spec.TaskID(inv.TaskID), ContextID: inv.ContextID,
		Status: spec.TaskStatus{State: st.State, Timestamp: &at}}
	if ev.Status.State == "" || a2a.EndsTurn(ev.Status.State) {
		ev.Status.State = spec.TaskStateWorking // only the outcome ends a turn
	}
	if st.Message != nil {
		ev.Status.Message = forTask(inv, st.Message)
	}
	if st.Progress != nil {
		ev.Metadata = map[string]any{MetadataKey: map[string]any{"progress": *st.Progress}}
	}
	return ev
}

// finalEvents are the events of an outcome: an artifact-update per
// artifact, then the final status-update (or the one that asks for input).
func finalEvents(inv caller.Invocation, res *caller.StoredResult) []spec.Event {
	var out []spec.Event
	for _, art := range resultArtifacts(res) {
		out = append(out, &spec.TaskArtifactUpdateEvent{TaskID: spec.TaskID(inv.TaskID), ContextID: inv.ContextID, Artifact: art, LastChunk: true})
	}
	return append(out, &spec.TaskStatusUpdateEvent{TaskID: spec.TaskID(inv.TaskID), ContextID: inv.ContextID,
		Status: resultStatus(inv, res), Metadata: resultMetadata(inv, res)})
}

// sameAgent reports whether a task's target is the agent of the URL.
func sameAgent(target, agent string) bool { return strings.EqualFold(target, agent) }
