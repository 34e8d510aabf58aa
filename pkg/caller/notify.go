// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"fmt"
	"strings"
	"unicode/utf8"

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
	// (the deadline sweeper's TIMEOUT), OutcomeLate (a result after it) or
	// OutcomeAnswer (the agent's answer).
	MetaOutcome = "outcome"
	// KindNotification marks the turns the result handler injects.
	KindNotification = "a2a.notification"
)

// Values of MetaOutcome.
const (
	OutcomeAnswer = "answer"
	OutcomeSwept  = "swept"
	OutcomeLate   = "late"
)

// notificationTurn is the synthetic user turn that tells the caller's LLM a
// task finished and where its full result is; swept is true for the TIMEOUT
// the deadline sweeper stores when no answer came.
func notificationTurn(s *StoredResult, key string, swept bool) memory.Turn {
	state := strings.ToLower(strings.TrimPrefix(string(s.State), "TASK_STATE_"))
	var text string
	outcome := OutcomeAnswer
	switch {
	case swept:
		outcome = OutcomeSwept
		text = fmt.Sprintf("[Agent '%s' did not answer task %s before its deadline (state=%s, code=TIMEOUT)]: %s. A cancel was sent; a result that still arrives will be stored at key '%s' and notified as late.",
			s.Agent, s.TaskID, state, s.Error.Message, key)
	case s.Error != nil:
		text = fmt.Sprintf("[Agent '%s' failed task %s (state=%s, code=%s)]: %s. Call get_from_working_memory with key '%s' for the details.",
			s.Agent, s.TaskID, state, s.Error.Code, preview(s.Error.Message), key)
	case s.Late:
		outcome = OutcomeLate
		text = fmt.Sprintf("[Agent '%s' completed task %s late, after it had timed out (state=%s)]: %s. Call get_from_working_memory with key '%s' to read the full result.",
			s.Agent, s.TaskID, state, preview(resultPreview(s)), key)
	default:
		text = fmt.Sprintf("[Agent '%s' completed task %s (state=%s)]: %s. Call get_from_working_memory with key '%s' to read the full result.",
			s.Agent, s.TaskID, state, preview(resultPreview(s)), key)
	}
	return memory.Turn{
		Role:    memory.RoleUser,
		Content: text,
		Meta: map[string]string{
			MetaKind: KindNotification, MetaTaskID: s.TaskID, MetaAgent: s.Agent, MetaMemoryKey: key, MetaState: string(s.State),
			MetaOutcome: outcome,
		},
	}
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

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= previewRunes {
		return s
	}
	r := []rune(s)
	return string(r[:previewRunes]) + "…"
}
