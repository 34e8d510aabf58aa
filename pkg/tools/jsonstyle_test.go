// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestToolResultsAreCamelCase: the results of every tool (and the error
// result) have camelCase names, like the wire; only the arguments keep the
// names models already use (agent_name, timeout_seconds, task_id).
func TestToolResultsAreCamelCase(t *testing.T) {
	progress, left := 0.5, 30
	failure := &tools.TaskFailure{Code: "TIMEOUT", Message: "m", Retryable: true}
	question := &tools.Question{Text: "q", Options: []a2a.Option{{ID: "1", Label: "l", Description: "d"}},
		InputSchema: json.RawMessage(`{"type":"object"}`), Auth: &a2a.AuthNeed{Scheme: "oauth2", Resource: "r", Scopes: []string{"s"}, URL: "u"}, AnswerBy: "a"}
	for _, v := range []any{
		&tools.InvokeResult{TaskID: "t", MemoryKey: "k", Status: tools.StatusSubmitted, Note: "n", State: "completed", Result: "r", Truncated: true, Error: failure,
			ContextID: "c", Turn: 1, Question: question},
		&tools.AgentList{Agents: []tools.AgentInfo{{Name: "A", Skills: []tools.SkillInfo{{ID: "s"}}, MoreSkills: 3, Status: "online", LastSeen: "now"}},
			Total: 1, NextCursor: "c"},
		&tools.TaskStatusResult{TaskID: "t", State: "working", StatusMessage: "m", Progress: &progress, Deadline: "d", SecondsLeft: &left,
			MemoryKey: "k", Preview: "p", Error: failure, Late: true, Note: "n", Turn: 2, Question: question},
		&tools.CancelResult{TaskID: "t", MemoryKey: "k", Status: tools.StatusCancelRequested, Note: "n"},
		json.RawMessage(tools.ErrorResult(errors.New("boom"))),
	} {
		if bad := testenv.NotCamelCaseJSON(v); len(bad) > 0 {
			t.Errorf("%T: %q", v, bad)
		}
	}
}
