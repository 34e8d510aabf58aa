// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/llm"
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of Event.
const (
	// EventTurn: a turn was appended to the conversation (by any process):
	// user, assistant, tool, notification.
	EventTurn EventKind = iota + 1
	// EventStatus: a status update of a sub-task this process started. It
	// is shown to people, never put into the model's context.
	EventStatus
	// EventRun: this process started running the model for the session's
	// new inputs (Seq is the newest turn it answers).
	EventRun
	// EventRunEnd: that run ended, answered, failed or given up (another
	// process answered, or the session closes); Seq is the same.
	EventRunEnd
	// EventToolCall: that run is about to run a tool call the model asked
	// for (Call); its KindToolCalls turn is stored once all of the step's
	// calls ran.
	EventToolCall
)

// Event is what a Session reports to its front end (Options.OnEvent).
type Event struct {
	Kind EventKind
	// Turn is the appended turn (EventTurn).
	Turn memory.Turn
	// Status is the sub-task's update (EventStatus).
	Status *a2a.TaskStatus
	// Seq is the newest turn a run answers (EventRun, EventRunEnd, EventToolCall).
	Seq int64
	// Call is the tool call (EventToolCall).
	Call llm.ToolCall
}
