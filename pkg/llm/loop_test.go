// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/llm"
)

var loopTools = []llm.Tool{
	{Name: "list_known_agents", Description: "list agents"},
	{Name: "invoke_agent", Description: "call an agent"},
}

func user(text string) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: text}}
}

// dispatcher answers tool calls with canned results and records them.
type dispatcher struct {
	mu      sync.Mutex
	calls   []llm.ToolCall
	results map[string]string // by tool name; missing: an error result
}

func (d *dispatcher) dispatch(_ context.Context, call llm.ToolCall) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, call)
	if r, ok := d.results[call.Name]; ok {
		return r, false
	}
	return fmt.Sprintf(`{"error":{"code":"NOT_FOUND","message":"unknown tool %s"}}`, call.Name), true
}

// steps records what OnStep received.
type steps struct {
	mu  sync.Mutex
	got [][]llm.Message
}

func (s *steps) on(_ context.Context, step []llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, append([]llm.Message(nil), step...))
	return nil
}

func TestLoopStepsInOrder(t *testing.T) {
	list := llmtest.Call("list_known_agents", map[string]any{})
	inv := llmtest.Call("invoke_agent", map[string]any{"agent": "ResearchAgent", "input": "otters"})
	s := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llm.ToolCall{list, inv}, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
		llmtest.Reply{
			Content: "Asked ResearchAgent.",
			Usage:   llm.Usage{PromptTokens: 30, CompletionTokens: 4, TotalTokens: 34},
			Expect: func(r llmtest.Request) error {
				// history (2) + the assistant message + both results, in call order
				if len(r.Messages) != 5 || r.Messages[3].ToolCallID != list.ID || r.Messages[4].ToolCallID != inv.ID {
					return fmt.Errorf("messages %+v", r.Messages)
				}
				if r.MaxTokens != 64 {
					return fmt.Errorf("max tokens %d, want the loop's 64", r.MaxTokens)
				}
				return nil
			},
		})
	d := &dispatcher{results: map[string]string{"list_known_agents": `["ResearchAgent"]`, "invoke_agent": `{"task_id":"t1"}`}}
	var st steps
	loop := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: d.dispatch, MaxTokens: 64, OnStep: st.on}
	out, err := loop.Run(t.Context(), user("otters?"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]llm.Message{
		{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{list, inv}},
			{Role: llm.RoleTool, ToolCallID: list.ID, Content: `["ResearchAgent"]`},
			{Role: llm.RoleTool, ToolCallID: inv.ID, Content: `{"task_id":"t1"}`},
		},
		{{Role: llm.RoleAssistant, Content: "Asked ResearchAgent."}},
	}
	if fmt.Sprint(st.got) != fmt.Sprint(want) {
		t.Errorf("steps\n got %+v\nwant %+v", st.got, want)
	}
	if fmt.Sprint(out.Messages) != fmt.Sprint(append(want[0], want[1]...)) {
		t.Errorf("outcome messages %+v", out.Messages)
	}
	if out.Final != "Asked ResearchAgent." || out.Requests != 2 || out.Model != "test-model" ||
		strings.Join(out.ToolCalls, ",") != "list_known_agents,invoke_agent" {
		t.Errorf("outcome %+v", out)
	}
	if out.Usage != (llm.Usage{PromptTokens: 40, CompletionTokens: 9, TotalTokens: 49}) {
		t.Errorf("usage %+v, want the sum of both requests", out.Usage)
	}
}

func TestLoopFeedsToolErrorsBack(t *testing.T) {
	bad := llmtest.Call("invoke_agent", map[string]any{"agent": "NoSuchAgent"})
	s := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llm.ToolCall{bad}},
		llmtest.Reply{
			Content: "That agent does not exist.",
			Expect: func(r llmtest.Request) error {
				if last := r.Last(); last.Role != llm.RoleTool || last.ToolCallID != bad.ID || !strings.Contains(last.Content, "unknown tool invoke_agent") {
					return fmt.Errorf("last message %+v, want the tool error", last)
				}
				return nil
			},
		})
	d := &dispatcher{} // every call fails
	out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: d.dispatch}.Run(t.Context(), user("call NoSuchAgent"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Final != "That agent does not exist." || len(d.calls) != 1 || s.Remaining() != 0 {
		t.Errorf("final %q after %d calls, %d replies left", out.Final, len(d.calls), s.Remaining())
	}
}

func TestLoopBoundsToolRounds(t *testing.T) {
	for _, tt := range []struct{ maxRounds, requests int }{{1, 2}, {3, 4}, {0, 9}} { // 0: the default 8
		s := llmtest.NewFunc(t, func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", "{}")}}
		})
		d := &dispatcher{results: map[string]string{"list_known_agents": "[]"}}
		var st steps
		out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: d.dispatch, MaxRounds: tt.maxRounds, OnStep: st.on}.Run(t.Context(), user("loop"))
		if !errors.Is(err, llm.ErrMaxToolRounds) {
			t.Fatalf("MaxRounds %d: error %v, want ErrMaxToolRounds", tt.maxRounds, err)
		}
		if got := len(s.Requests()); got != tt.requests || out.Requests != tt.requests {
			t.Errorf("MaxRounds %d: %d requests (outcome %d), want %d", tt.maxRounds, got, out.Requests, tt.requests)
		}
		// Every finished round is stored; the refused one is not run.
		if rounds := tt.requests - 1; len(st.got) != rounds || len(out.Messages) != 2*rounds || len(d.calls) != rounds {
			t.Errorf("MaxRounds %d: %d steps, %d messages, %d calls; want %d rounds", tt.maxRounds, len(st.got), len(out.Messages), len(d.calls), rounds)
		}
	}
}

var errBudget = errors.New("token budget spent")

func TestLoopBeforeRequestRefuses(t *testing.T) {
	// Refused at once: the model is never asked.
	s := llmtest.New(t)
	out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), BeforeRequest: func(llm.Usage) error { return errBudget }}.Run(t.Context(), user("x"))
	if !errors.Is(err, errBudget) || out.Requests != 0 || len(s.Requests()) != 0 {
		t.Fatalf("error %v after %d requests (server saw %d), want the refusal before any", err, out.Requests, len(s.Requests()))
	}

	// Refused once the first round spent the budget: no second request.
	s = llmtest.New(t, llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", "{}")}, Usage: llm.Usage{PromptTokens: 90, CompletionTokens: 20, TotalTokens: 110}})
	var seen []llm.Usage
	before := func(used llm.Usage) error {
		seen = append(seen, used)
		if used.TotalTokens >= 100 {
			return fmt.Errorf("chat: %w (%d of 100)", errBudget, used.TotalTokens)
		}
		return nil
	}
	var st steps
	d := &dispatcher{results: map[string]string{"list_known_agents": "[]"}}
	out, err = llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: d.dispatch, BeforeRequest: before, OnStep: st.on}.Run(t.Context(), user("x"))
	if !errors.Is(err, errBudget) || len(s.Requests()) != 1 {
		t.Fatalf("error %v after %d requests, want the budget error after 1", err, len(s.Requests()))
	}
	if fmt.Sprint(seen) != fmt.Sprint([]llm.Usage{{}, {PromptTokens: 90, CompletionTokens: 20, TotalTokens: 110}}) {
		t.Errorf("BeforeRequest saw %+v", seen)
	}
	if len(st.got) != 1 || out.Usage.TotalTokens != 110 {
		t.Errorf("%d steps stored, usage %+v: want the finished round and its usage", len(st.got), out.Usage)
	}
}

func TestLoopOnStepErrorStops(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", "{}")}})
	errStore := errors.New("memory down")
	d := &dispatcher{results: map[string]string{"list_known_agents": "[]"}}
	out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: d.dispatch,
		OnStep: func(context.Context, []llm.Message) error { return errStore }}.Run(t.Context(), user("x"))
	if !errors.Is(err, errStore) || len(out.Messages) != 0 || len(s.Requests()) != 1 {
		t.Errorf("error %v, %d messages, %d requests: want the store error, nothing kept, no second request", err, len(out.Messages), len(s.Requests()))
	}
}

func TestLoopCancelDuringToolsStoresNoHalfStep(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", "{}"), llmtest.Call("list_known_agents", "{}")}})
	ctx, cancel := context.WithCancel(t.Context())
	var st steps
	dispatch := func(_ context.Context, call llm.ToolCall) (string, bool) {
		cancel() // the user gave up while the first tool ran
		return "{}", false
	}
	out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools, Dispatch: dispatch, OnStep: st.on}.Run(ctx, user("x"))
	if !errors.Is(err, context.Canceled) || len(st.got) != 0 || len(out.Messages) != 0 {
		t.Errorf("error %v, %d steps stored: want context.Canceled and none", err, len(st.got))
	}
}

func TestLoopModelFailure(t *testing.T) {
	s := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", "{}")}},
		llmtest.Reply{Status: 503})
	d := &dispatcher{results: map[string]string{"list_known_agents": "[]"}}
	c := llmtest.Client(t, s.URL, "test-model") // no retries
	out, err := llm.Loop{Client: c, Tools: loopTools, Dispatch: d.dispatch}.Run(t.Context(), user("x"))
	if !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), s.URL) {
		t.Fatalf("error %v, want ErrUnavailable naming the endpoint", err)
	}
	if len(out.Messages) != 2 || out.Requests != 1 {
		t.Errorf("outcome %+v: want the finished round kept", out)
	}
}

// TestLoopToolCallsWithoutTools: a model that calls a tool none offered
// gets an error result it can read, and the loop goes on.
func TestLoopToolCallsWithoutTools(t *testing.T) {
	s := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("rm_rf", "{}")}},
		llmtest.Reply{Content: "Sorry.", Expect: func(r llmtest.Request) error {
			if !strings.Contains(r.Last().Content, `\"rm_rf\" cannot be called`) {
				return fmt.Errorf("last message %+v", r.Last())
			}
			return nil
		}})
	out, err := llm.Loop{Client: llmtest.Client(t, s.URL, "test-model")}.Run(t.Context(), user("x"))
	if err != nil || out.Final != "Sorry." {
		t.Fatalf("outcome %+v, error %v", out, err)
	}
}

func TestLoopNeedsClientAndDispatch(t *testing.T) {
	if _, err := (llm.Loop{}).Run(t.Context(), user("x")); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("no client: %v", err)
	}
	s := llmtest.New(t)
	if _, err := (llm.Loop{Client: llmtest.Client(t, s.URL, "test-model"), Tools: loopTools}).Run(t.Context(), user("x")); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("tools without dispatch: %v", err)
	}
}
