// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestQuestionThroughMCP: an MCP client invokes SampleAgent's confirm,
// which asks: the waited call returns the question (structured too), the
// result resource holds it (state input-required, the question, when it is
// due) and its subscribers are notified; task_status shows it; the client
// answers with invoke_agent and task_id, and the resource then holds the
// final result; a second answer is a tool error coded TASK_FINISHED.
func TestQuestionThroughMCP(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, mcpserver.Options{})
		c := connect(t, m.server, legacy)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		var asked tools.InvokeResult
		testenv.Eventually(t, "SampleAgent answers", func() bool {
			text, isErr, _ := c.call(t, "invoke_agent", map[string]any{"agent_name": m.agent, "skill": sample.SkillConfirm, "message": "the room", "wait": true})
			return !isErr && json.Unmarshal([]byte(text), &asked) == nil
		})
		if asked.State != tools.StateInputRequired || asked.Question == nil || asked.Question.Text != "Confirm: the room?" || len(asked.Question.Options) != 2 {
			t.Fatalf("invoke_agent of a skill that asks = %+v", asked)
		}
		uri := mcpserver.ResultURI(asked.MemoryKey)
		if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "resources/updated for the question", func() bool { return slices.Contains(c.updates(), uri) })
		read, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		var stored caller.StoredResult
		if json.Unmarshal([]byte(read.Contents[0].Text), &stored) != nil || stored.State != a2a.TaskStateInputRequired ||
			stored.Question == nil || stored.Question.Options[0].ID != sample.OptionYes.ID || stored.AnswerBy.IsZero() ||
			!strings.Contains(read.Contents[0].Text, `"question":{`) {
			t.Fatalf("the result resource of a waiting task = %s", read.Contents[0].Text)
		}
		text, isErr, _ := c.call(t, "task_status", map[string]any{"task_id": asked.TaskID})
		var st tools.TaskStatusResult
		if isErr || json.Unmarshal([]byte(text), &st) != nil || st.State != tools.StateInputRequired || st.Question == nil {
			t.Fatalf("task_status = %s", text)
		}

		text, isErr, res := c.call(t, "invoke_agent", map[string]any{"task_id": asked.TaskID, "option": "yes", "wait": true})
		var done tools.InvokeResult
		if isErr || json.Unmarshal([]byte(text), &done) != nil || done.State != tools.StateCompleted || done.Result != "Confirmed: the room" || done.Turn != 1 {
			t.Fatalf("the answer = %s", text)
		}
		if sc, err := json.Marshal(res.StructuredContent); err != nil || !jsonEqual(t, sc, []byte(text)) {
			t.Errorf("structured content %s, want the text %s", sc, text)
		}
		read, err = c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		stored = caller.StoredResult{}
		if err != nil || json.Unmarshal([]byte(read.Contents[0].Text), &stored) != nil || stored.State != a2a.TaskStateCompleted || stored.Question != nil {
			t.Fatalf("the result resource after the answer = %+v, %v", read, err)
		}
		text, isErr, _ = c.call(t, "invoke_agent", map[string]any{"task_id": asked.TaskID, "message": "no"})
		if !isErr || errorCode(t, text) != "TASK_FINISHED" {
			t.Fatalf("a second answer = %s (error %v), want TASK_FINISHED", text, isErr)
		}
	})
}
