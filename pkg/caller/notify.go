// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// previewRunes bounds the result preview in a notification turn.
const previewRunes = 200

// Meta keys of notification turns, camelCase; turns appended before carry
// task_id and memory_key, read by memory.MetaValue.
const (
	MetaKind      = "kind"
	MetaTaskID    = "taskId"
	MetaAgent     = "agent"
	MetaMemoryKey = "memoryKey"
	MetaState     = "state"
	// MetaOutcome says which outcome a notification reports: OutcomeSwept
	// (the deadline sweeper's TIMEOUT), OutcomeLate (a result after it),
	// OutcomeAnswer (the agent's answer), OutcomeQuestion (the agent asks
	// its caller something: the task waits for input) or OutcomeCanceled
	// (canceled while it waited for an answer).
	MetaOutcome = "outcome"
	// MetaTurn is the turn a notification is about, on a task that talks
	// back (absent for turn 0 of a task that never asked).
	MetaTurn = "turn"
	// KindNotification marks the turns the result handler injects.
	KindNotification = "a2a.notification"
)

// Values of MetaOutcome.
const (
	OutcomeAnswer   = "answer"
	OutcomeSwept    = "swept"
	OutcomeLate     = "late"
	OutcomeQuestion = "question"
	OutcomeCanceled = "canceled"
)

// notificationTurn is the synthetic user turn that tells the caller's LLM a
// task finished and where its full result is; swept is true for the TIMEOUT
// the deadline sweeper stores when no answer came.
func notificationTurn(s *StoredResult, key string, swept bool) memory.Turn {
	state := stateWord(s.State)
	var text string
	outcome := OutcomeAnswer
	switch {
	case s.endedWait == startTimeout:
		outcome = OutcomeSwept
		text = fmt.Sprintf("[Agent '%s' asked a question in task %s and nobody answered it in time (state=%s, code=TIMEOUT)]: %s. The task is over; invoke the agent again to start over. Details at key '%s'.",
			s.Agent, s.TaskID, state, preview(s.Error.Message), key)
	case s.endedWait == startCanceled:
		outcome = OutcomeCanceled
		text = fmt.Sprintf("[Task %s of agent '%s' was canceled while it waited for an answer (state=%s, code=CANCELED)]. No agent was running it; the task is over.",
			s.TaskID, s.Agent, state)
	case swept && s.Error != nil && s.Error.Code == a2a.CodeExpiredInQueue:
		outcome = OutcomeSwept
		text = fmt.Sprintf("[No agent '%s' took task %s from its queue in time (state=%s, code=EXPIRED_IN_QUEUE)]: %s. It never ran; invoke it again once the agent runs. A result that still arrives will be stored at key '%s' and notified as late.",
			s.Agent, s.TaskID, state, s.Error.Message, key)
	case swept:
		outcome = OutcomeSwept
		text = fmt.Sprintf("[Agent '%s' did not answer task %s before its deadline (state=%s, code=TIMEOUT)]: %s. A cancel was sent; a result that still arrives will be stored at key '%s' and notified as late.",
			s.Agent, s.TaskID, state, preview(s.Error.Message), key)
	case s.Error != nil:
		text = fmt.Sprintf("[Agent '%s' failed task %s (state=%s, code=%s)]: %s. Call get_from_working_memory with key '%s' for the details.",
			s.Agent, s.TaskID, state, s.Error.Code, preview(s.Error.Message), key)
	case s.Late:
		outcome = OutcomeLate
		text = "[Agent '" + s.Agent + "' completed task " + s.TaskID + " late, after it had timed out (state=" + state + ")]: " +
			resultText(s, resultPreview(s), previewRunes) + ". Call get_from_working_memory with key '" + key + "' to read the full result."
	default: // every call's: one concatenation, not fmt's boxing of each value
		text = "[Agent '" + s.Agent + "' completed task " + s.TaskID + " (state=" + state + ")]: " +
			resultText(s, resultPreview(s), previewRunes) + ". Call get_from_working_memory with key '" + key + "' to read the full result."
	}
	return notification(s, key, outcome, text)
}

// stateWord is a task state as a notification names it: lower case,
// without its TASK_STATE_ prefix (a known state's without an allocation).
func stateWord(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateCompleted:
		return "completed"
	case a2a.TaskStateFailed:
		return "failed"
	case a2a.TaskStateCanceled:
		return "canceled"
	case a2a.TaskStateRejected:
		return "rejected"
	case a2a.TaskStateInputRequired:
		return "input_required"
	case a2a.TaskStateAuthRequired:
		return "auth_required"
	}
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

// notification is a notification turn about s with text.
func notification(s *StoredResult, key, outcome, text string) memory.Turn {
	meta := map[string]string{
		MetaKind: KindNotification, MetaTaskID: s.TaskID, MetaAgent: s.Agent, MetaMemoryKey: key, MetaState: string(s.State),
		MetaOutcome: outcome,
	}
	if s.Turn > 0 || s.Question != nil {
		meta[MetaTurn] = strconv.Itoa(s.Turn)
	}
	return memory.Turn{Role: memory.RoleUser, Content: text, Meta: meta}
}

// maxOptionsListed bounds the options a question's notification lists.
const maxOptionsListed = 10

// questionTurn is the notification turn of a question: it says plainly
// that the agent asks something (or needs authentication), what (the
// question, the options offered, the shape of a structured answer, what
// to authenticate with), until when, and how to answer.
func questionTurn(s *StoredResult, key string) memory.Turn {
	q := s.Question
	if q == nil {
		q = &a2a.Question{}
	}
	var b strings.Builder
	if s.State == a2a.TaskStateAuthRequired {
		fmt.Fprintf(&b, "[Agent '%s' needs authentication to go on with task %s (state=auth_required)]: %s.", s.Agent, s.TaskID, preview(q.Text))
		if n := q.Auth; n != nil {
			fmt.Fprintf(&b, " It needs: %s", n.Scheme)
			if n.Resource != "" {
				fmt.Fprintf(&b, " for %s", n.Resource)
			}
			if len(n.Scopes) > 0 {
				fmt.Fprintf(&b, " (scopes: %s)", strings.Join(n.Scopes, ", "))
			}
			if n.URL != "" {
				fmt.Fprintf(&b, "; authenticate at %s", n.URL)
			}
			b.WriteString(".")
		}
	} else {
		fmt.Fprintf(&b, "[Agent '%s' asks a question in task %s (state=input_required)]: %s", s.Agent, s.TaskID, preview(q.Text))
	}
	for i, o := range q.Options {
		if i == maxOptionsListed {
			fmt.Fprintf(&b, " … and %d more options (read key '%s')", len(q.Options)-i, key)
			break
		}
		if i == 0 {
			b.WriteString(" Options:")
		}
		fmt.Fprintf(&b, " (%d) %s — %s", i+1, o.ID, preview(o.Label))
		if o.Description != "" {
			fmt.Fprintf(&b, ": %s", preview(o.Description))
		}
		b.WriteString(";")
	}
	if len(q.InputSchema) > 0 {
		fmt.Fprintf(&b, " A structured answer is expected: its JSON Schema is the question's inputSchema at key '%s'.", key)
	}
	how := "your answer as the message"
	if len(q.Options) > 0 {
		how += ", or option set to an option's id"
	}
	fmt.Fprintf(&b, " The task waits for your answer until %s (then it ends TIMEOUT): answer it with invoke_agent (task_id '%s' and %s) or `a2abus reply %s <answer>`; cancel it with cancel_task.",
		answerDue(s.AnswerBy), s.TaskID, how, s.TaskID)
	return notification(s, key, OutcomeQuestion, redact.String(b.String()))
}

// resultPreview is the message text, else the text of the artifacts.
func resultPreview(s *StoredResult) string {
	if t := a2a.MessageText(s.Message); t != "" {
		return t
	}
	var parts []string
	for _, a := range s.Artifacts {
		if a == nil {
			continue
		}
		if t := a2a.MessageText(&a2a.Message{Parts: a.Parts}); t != "" {
			parts = append(parts, t)
		} else if a.Name != "" {
			parts = append(parts, "artifact "+a.Name)
		}
	}
	if len(parts) == 0 {
		return "(structured result)"
	}
	return strings.Join(parts, " | ")
}

// preview is s redacted (the process's redactor), its white space made
// single spaces, cut to previewRunes: every text of a notification turn
// from the agent goes through it, as the turn is what a model reads.
func preview(s string) string { return redact.Default().Preview(s, previewRunes) }
