// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/llm"
)

var chatAsked = regexp.MustCompile(`asks a question in task ([A-Za-z0-9_-]+)`)

// TestChatQuestionAgainstRealServers: in `a2abus chat --message`, an
// agent's question that the model hands to the user is shown on stderr
// and exits 4; the user's next message (another chat process on the
// session) is the answer, which the model passes on, and the task's
// result comes back, exit 0.
func TestChatQuestionAgainstRealServers(t *testing.T) {
	w, sampleName, _ := chatWorld(t, "Ask")

	srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		last := req.Last()
		switch {
		case last.Role == llm.RoleUser && strings.Contains(last.Content, "asks a question"):
			return llmtest.Reply{Content: "Do you confirm the room?"}
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "[Agent"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("get_from_working_memory", map[string]string{"key": chatKey.FindStringSubmatch(last.Content)[1]})}}
		case last.Role == llm.RoleUser && last.Content == "yes":
			for _, m := range req.Messages {
				if found := chatAsked.FindStringSubmatch(m.Content); m.Role == llm.RoleSystem && found != nil {
					return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"task_id": found[1], "message": "yes"})}}
				}
			}
			t.Errorf("the user's answer came with no waiting question listed")
			return llmtest.Reply{Content: "?"}
		case last.Role == llm.RoleUser:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": sampleName, "skill": sample.SkillConfirm, "message": "the room"})}}
		case last.Role == llm.RoleTool && strings.Contains(last.Content, `"status":"submitted"`):
			return llmtest.Reply{Content: "asked " + sampleName}
		case last.Role == llm.RoleTool && strings.Contains(last.Content, `"status":"answered"`):
			return llmtest.Reply{Content: "passed on"}
		case last.Role == llm.RoleTool && strings.Contains(last.Content, "Confirmed: the room"):
			return llmtest.Reply{Content: "result: Confirmed: the room"}
		}
		t.Errorf("unexpected request, last %+v", last)
		return llmtest.Reply{Content: "?"}
	})
	chatModel(t, srv)
	session := "chat-ask-" + strings.ToLower(w.N("s"))

	code, out, errOut := runCLI(t, "chat", "--session", session, "--message", "book the room", "--timeout", "20s")
	if code != cliutil.ExitInputRequired || out != "asked "+sampleName+"\nDo you confirm the room?\n" ||
		!strings.Contains(errOut, "· "+sampleName+" asks a question (task ") || !strings.Contains(errOut, "a2abus chat --session "+session+" --message ANSWER") {
		t.Fatalf("a question handed to the user: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "chat", "--session", session, "--message", "yes", "--timeout", "20s")
	if code != 0 || out != "passed on\nresult: Confirmed: the room\n" {
		t.Fatalf("the user's answer: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
}
