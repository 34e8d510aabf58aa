// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/llm"
)

// recorder is a testing.TB that records Errorf instead of failing, to
// check that the server reports what it should.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// post sends body to the server's chat/completions and decodes the answer.
func post(t *testing.T, s *Server, body string, header ...string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	return res.StatusCode, res.Header, out
}

// message is choices[0].message of a completion.
func message(t *testing.T, out map[string]any) (map[string]any, string) {
	t.Helper()
	choices, _ := out["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("choices %v", out["choices"])
	}
	c := choices[0].(map[string]any)
	return c["message"].(map[string]any), c["finish_reason"].(string)
}

func TestServerPlaysTheScriptAndRecords(t *testing.T) {
	call := Call("invoke_agent", map[string]any{"agent": "Echo"})
	s := New(t,
		Reply{ToolCalls: []llm.ToolCall{call}},
		Reply{Content: "done", Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}})

	status, _, out := post(t, s, `{"model":"m1","max_completion_tokens":50,
		"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hel"},{"type":"text","text":"lo"}]}],
		"tools":[{"type":"function","function":{"name":"invoke_agent","parameters":{}}}]}`, "Authorization", "Bearer k")
	msg, finish := message(t, out)
	if status != 200 || finish != "tool_calls" || out["model"] != "m1" {
		t.Fatalf("status %d finish %q model %v", status, finish, out["model"])
	}
	calls, _ := msg["tool_calls"].([]any)
	if len(calls) != 1 {
		t.Fatalf("tool_calls %v", msg["tool_calls"])
	}
	c := calls[0].(map[string]any)
	fn := c["function"].(map[string]any)
	if c["id"] != call.ID || c["type"] != "function" || fn["name"] != "invoke_agent" || fn["arguments"] != `{"agent":"Echo"}` {
		t.Errorf("tool call %v, want %+v", c, call)
	}
	// No usage scripted: an estimate of the texts (prompt "sys"+"hello", a call).
	if u := out["usage"].(map[string]any); u["prompt_tokens"] != 3.0 || u["completion_tokens"] != 10.0 || u["total_tokens"] != 13.0 {
		t.Errorf("estimated usage %v", u)
	}

	_, _, out = post(t, s, `{"model":"m1","messages":[{"role":"user","content":"x"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"`+call.ID+`","type":"function","function":{"name":"invoke_agent","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"`+call.ID+`","content":"ok"}]}`)
	msg, finish = message(t, out)
	if msg["content"] != "done" || finish != "stop" || out["usage"].(map[string]any)["total_tokens"] != 3.0 {
		t.Errorf("second answer %v", out)
	}

	reqs := s.Requests()
	if len(reqs) != 2 || s.Remaining() != 0 {
		t.Fatalf("%d requests recorded, %d replies left", len(reqs), s.Remaining())
	}
	first := reqs[0]
	if first.Model != "m1" || first.MaxTokens != 50 || strings.Join(first.Tools, ",") != "invoke_agent" ||
		first.Last().Content != "hello" || first.Header.Get("Authorization") != "Bearer k" {
		t.Errorf("first request %+v", first)
	}
	second := reqs[1].Messages
	if len(second) != 3 || second[1].ToolCalls[0].ID != call.ID || second[2].Role != llm.RoleTool || second[2].ToolCallID != call.ID {
		t.Errorf("second request messages %+v", second)
	}
}

func TestServerErrorsAndRetryAfter(t *testing.T) {
	s := New(t, Reply{Status: http.StatusTooManyRequests, RetryAfter: "2"})
	status, header, out := post(t, s, `{"messages":[{"role":"user","content":"x"}]}`)
	if status != 429 || header.Get("Retry-After") != "2" {
		t.Errorf("status %d Retry-After %q", status, header.Get("Retry-After"))
	}
	if e, _ := out["error"].(map[string]any); e["message"] != "llmtest: scripted status 429" {
		t.Errorf("error body %v", out)
	}
}

func TestServerReportsScriptMisuse(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec, Reply{Content: "sent anyway", Expect: func(r Request) error {
		if r.Last().Content != "expected" {
			return errors.New("unexpected last message " + r.Last().Content)
		}
		return nil
	}})
	_, _, out := post(t, s, `{"messages":[{"role":"user","content":"other"}]}`)
	if msg, _ := message(t, out); msg["content"] != "sent anyway" {
		t.Errorf("reply %v", out)
	}
	status, _, _ := post(t, s, `{"messages":[{"role":"user","content":"one too many"}]}`)
	if status != http.StatusInternalServerError {
		t.Errorf("past the script: status %d, want 500", status)
	}
	errs := rec.errors()
	if len(errs) != 2 || !strings.Contains(errs[0], "unexpected last message other") || !strings.Contains(errs[1], "past the end of the script") {
		t.Errorf("reported %q", errs)
	}
}

func TestServerNewFuncAndAdd(t *testing.T) {
	s := NewFunc(t, func(r Request) Reply { return Reply{Content: "echo " + r.Last().Content} })
	_, _, out := post(t, s, `{"messages":[{"role":"user","content":"ping"}]}`)
	if msg, _ := message(t, out); msg["content"] != "echo ping" {
		t.Errorf("reply %v", out)
	}
	s2 := New(t)
	s2.Add(Reply{Content: "added"})
	_, _, out = post(t, s2, `{"messages":[{"role":"user","content":"x"}]}`)
	if msg, _ := message(t, out); msg["content"] != "added" {
		t.Errorf("reply %v", out)
	}
}

func TestServerDelayEndsWithTheRequest(t *testing.T) {
	s := New(t, Reply{Delay: time.Hour, Content: "never"})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(`{"messages":[]}`))
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the client's deadline", err)
	}
	// The server's handler returned too: closing it at cleanup does not wait an hour.
}

func TestServerRefusesOtherPaths(t *testing.T) {
	s := New(t)
	res, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusNotFound || len(s.Requests()) != 0 {
		t.Errorf("GET /models: status %d, %d requests recorded", res.StatusCode, len(s.Requests()))
	}
}

func TestCall(t *testing.T) {
	a, b := Call("f", `{"raw": true}`), Call("f", map[string]int{"n": 1})
	if a.ID == b.ID || a.Arguments != `{"raw": true}` || b.Arguments != `{"n":1}` || a.Name != "f" {
		t.Errorf("calls %+v %+v", a, b)
	}
}
