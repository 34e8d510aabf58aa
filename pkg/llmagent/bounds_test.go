// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/llm"
)

// TestToolArgumentsAreBoundedBeforeTheToolbox: a tool call whose arguments
// pass MaxToolArgumentBytes never reaches the gate's parsing nor the
// toolbox; the model reads INVALID_ARGUMENTS naming the bound and answers.
func TestToolArgumentsAreBoundedBeforeTheToolbox(t *testing.T) {
	big := `{"filter":"` + strings.Repeat("x", 2<<20) + `"}`
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call(ToolListKnownAgents, big)}},
		llmtest.Reply{Content: "done", Expect: func(r llmtest.Request) error {
			last := r.Last()
			if last.Role != llm.RoleTool || !strings.Contains(last.Content, "INVALID_ARGUMENTS") ||
				!strings.Contains(last.Content, "1048576 bytes (llm.max_tool_argument_bytes)") {
				return fmt.Errorf("the model read %.300q, want INVALID_ARGUMENTS naming the bound", last.Content)
			}
			return nil
		}})
	box := &fakeBox{}
	a := newAgent(t, testSpec(t, ToolListKnownAgents), llmtest.Client(t, srv.URL, "m"), func(o *Options) {
		o.Tools, o.MaxToolArgumentBytes = fakeFactory(box), 1<<20
	})
	res, err := a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi"))
	if err != nil || a2a.MessageText(res.Message) != "done" {
		t.Fatalf("handler = %v, %v", res, err)
	}
	if len(box.ran) != 0 {
		t.Errorf("the toolbox ran %d calls (%.80s…), want none", len(box.ran), box.ran[0])
	}
}

// TestAnAnswerPastTheResponseBoundFailsTheTask: a 50 MB answer is read no
// further than llm.max_response_bytes; the task fails naming the bound
// instead of the agent holding the answer in memory.
func TestAnAnswerPastTheResponseBoundFailsTheTask(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{ContentBytes: 50 << 20})
	a := newAgent(t, testSpec(t), llmtest.Client(t, srv.URL, "m"), func(o *Options) { o.Endpoint = srv.URL })
	_, err := a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi"))
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != a2a.CodeExecutionFailed || !strings.Contains(e.Message, "llm.max_response_bytes (4 MiB") {
		t.Fatalf("err = %#v, want EXECUTION_FAILED naming llm.max_response_bytes", err)
	}
	srv.Close()
	if w := srv.Written(); w > 20<<20 {
		t.Errorf("the server wrote %d bytes of a 50 MB answer; reading should stop near 4 MiB", w)
	}
}
