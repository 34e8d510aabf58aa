// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llm/openai"
)

const testKey = "sk-test-0123456789abcdefSECRET"

// newClient returns a client of baseURL with test options changed by mod.
func newClient(t *testing.T, baseURL string, mod ...func(*llm.Options)) *openai.Client {
	t.Helper()
	o := llm.Options{BaseURL: baseURL, APIKey: testKey, Model: "test-model", Temperature: 0.2, Timeout: 30 * time.Second, MaxRetries: 2}
	for _, m := range mod {
		m(&o)
	}
	c, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func user(text string) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: text}}
}

// errorChain returns err and every error it wraps.
func errorChain(err error) []error {
	if err == nil {
		return nil
	}
	out := []error{err}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, errorChain(u.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, errorChain(e)...)
		}
	}
	return out
}

// noKey fails t when the API key appears in err or any error it wraps.
func noKey(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, e := range errorChain(err) {
		for _, s := range append(secrets, testKey) {
			if strings.Contains(e.Error(), s) {
				t.Errorf("error %q contains the secret %q", e.Error(), s)
			}
		}
	}
}

func TestOpenAIPlainAnswer(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{
		Content: "Paris.",
		Usage:   llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15},
		Expect: func(r llmtest.Request) error {
			if r.Model != "test-model" || r.MaxTokens != 256 || len(r.Tools) != 0 {
				return fmt.Errorf("model %q max tokens %d tools %v", r.Model, r.MaxTokens, r.Tools)
			}
			if len(r.Messages) != 2 || r.Messages[0].Role != llm.RoleSystem || r.Last().Content != "capital of France?" {
				return fmt.Errorf("messages %+v", r.Messages)
			}
			return nil
		},
	})
	c := newClient(t, s.URL, func(o *llm.Options) { o.MaxTokens = 256 })
	resp, err := c.Complete(t.Context(), llm.Request{Messages: user("capital of France?")})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Paris."},
		Usage:   llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15},
		Model:   "test-model", FinishReason: "stop",
	}
	if fmt.Sprint(*resp) != fmt.Sprint(want) {
		t.Errorf("response %+v, want %+v", *resp, want)
	}
	if c.Endpoint() != s.URL || c.Model() != "test-model" {
		t.Errorf("Endpoint() %q Model() %q", c.Endpoint(), c.Model())
	}
}

func TestOpenAIToolCallRoundTrip(t *testing.T) {
	call := llmtest.Call("invoke_agent", map[string]any{"agent": "ResearchAgent", "input": "otters"})
	s := llmtest.New(t,
		llmtest.Reply{
			ToolCalls: []llm.ToolCall{call},
			Expect: func(r llmtest.Request) error {
				if strings.Join(r.Tools, ",") != "invoke_agent,list_known_agents" {
					return fmt.Errorf("tools offered %v", r.Tools)
				}
				return nil
			},
		},
		llmtest.Reply{
			Content: "Otters hold hands.",
			Expect: func(r llmtest.Request) error {
				if len(r.Messages) != 4 {
					return fmt.Errorf("%d messages, want 4: %+v", len(r.Messages), r.Messages)
				}
				a, tool := r.Messages[2], r.Messages[3]
				if a.Role != llm.RoleAssistant || len(a.ToolCalls) != 1 || a.ToolCalls[0] != call {
					return fmt.Errorf("assistant message %+v, want the call %+v", a, call)
				}
				if tool.Role != llm.RoleTool || tool.ToolCallID != call.ID || tool.Content != `{"task_id":"t1"}` {
					return fmt.Errorf("tool message %+v", tool)
				}
				return nil
			},
		})
	c := newClient(t, s.URL)
	tools := []llm.Tool{
		{Name: "invoke_agent", Description: "call an agent", Parameters: json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string"}},"required":["agent"]}`)},
		{Name: "list_known_agents", Description: "list agents"},
	}
	msgs := user("tell me about otters")
	resp, err := c.Complete(t.Context(), llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "tool_calls" || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0] != call {
		t.Fatalf("response %+v, want the call %+v", resp, call)
	}
	msgs = append(msgs, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: `{"task_id":"t1"}`})
	resp, err = c.Complete(t.Context(), llm.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Otters hold hands." || len(resp.Message.ToolCalls) != 0 || resp.FinishReason != "stop" {
		t.Errorf("final response %+v", resp)
	}
	if resp.Usage.TotalTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Errorf("usage %+v", resp.Usage)
	}
}

// capture is an HTTP client that records the raw request bodies sent.
type capture struct {
	mu     sync.Mutex
	bodies []string
}

func (c *capture) client() *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.bodies = append(c.bodies, string(b))
		c.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		return http.DefaultTransport.RoundTrip(r)
	})}
}

func (c *capture) last(t *testing.T) map[string]any {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		t.Fatal("no request sent")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(c.bodies[len(c.bodies)-1]), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOpenAIWireShape(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Content: "a"}, llmtest.Reply{Content: "b"})
	var cap capture
	c := newClient(t, s.URL, func(o *llm.Options) { o.MaxTokens = 100; o.Temperature = 0; o.HTTPClient = cap.client() })
	schema := `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	tools := []llm.Tool{{Name: "search", Description: "search docs", Parameters: json.RawMessage(schema)}}
	if _, err := c.Complete(t.Context(), llm.Request{Messages: user("x"), Tools: tools}); err != nil {
		t.Fatal(err)
	}
	body := cap.last(t)
	if body["max_tokens"] != 100.0 || body["max_completion_tokens"] != nil {
		t.Errorf("max_tokens %v max_completion_tokens %v, want max_tokens 100 only", body["max_tokens"], body["max_completion_tokens"])
	}
	if v, ok := body["temperature"]; !ok || v != 0.0 {
		t.Errorf("temperature %v (sent %v), want 0 sent", v, ok)
	}
	tool, _ := json.Marshal(body["tools"]) // keys sorted, as json.Marshal writes maps
	if want := `[{"function":{"description":"search docs","name":"search","parameters":{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}},"type":"function"}]`; string(tool) != want {
		t.Errorf("tools\n got %s\nwant %s", tool, want)
	}
	// A request's own bound wins over the client's.
	if _, err := c.Complete(t.Context(), llm.Request{Messages: user("y"), MaxTokens: 7}); err != nil {
		t.Fatal(err)
	}
	if body := cap.last(t); body["max_tokens"] != 7.0 || body["tools"] != nil {
		t.Errorf("max_tokens %v tools %v, want 7 and none", body["max_tokens"], body["tools"])
	}
}

func TestOpenAIRefusesBadRequestsBeforeSending(t *testing.T) {
	s := llmtest.New(t)
	c := newClient(t, s.URL)
	for name, req := range map[string]llm.Request{
		"no messages":      {},
		"unknown role":     {Messages: []llm.Message{{Role: "robot", Content: "x"}}},
		"tool without id":  {Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}},
		"call without id":  {Messages: []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "f"}}}}},
		"bad schema":       {Messages: user("x"), Tools: []llm.Tool{{Name: "f", Parameters: json.RawMessage(`[1`)}}},
		"unnamed tool":     {Messages: user("x"), Tools: []llm.Tool{{Description: "f"}}},
		"negative maximum": {Messages: user("x"), MaxTokens: -1},
	} {
		_, err := c.Complete(t.Context(), req)
		if !errors.Is(err, llm.ErrRejected) || !strings.Contains(err.Error(), "not sent to "+s.URL) {
			t.Errorf("%s: error %v, want ErrRejected naming the endpoint", name, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestOpenAIAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment-must-not-leak")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	s := llmtest.New(t, llmtest.Reply{Content: "a"}, llmtest.Reply{Content: "b"})
	if _, err := newClient(t, s.URL).Complete(t.Context(), llm.Request{Messages: user("x")}); err != nil {
		t.Fatal(err)
	}
	// Without a key (a local server), no Authorization header at all: not
	// the OPENAI_API_KEY of the environment.
	if _, err := newClient(t, s.URL, func(o *llm.Options) { o.APIKey = "" }).Complete(t.Context(), llm.Request{Messages: user("x")}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization %q, want the bearer key", got)
	}
	if got, ok := reqs[1].Header["Authorization"]; ok {
		t.Errorf("Authorization %q sent without a key", got)
	}
}

func TestOpenAIRetriesHonourRetryAfter(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "1"}, llmtest.Reply{Content: "ok"})
	c := newClient(t, s.URL)
	start := time.Now()
	resp, err := c.Complete(t.Context(), llm.Request{Messages: user("x")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "ok" || len(s.Requests()) != 2 {
		t.Errorf("content %q after %d requests, want ok after 2", resp.Message.Content, len(s.Requests()))
	}
	// The SDK's own first backoff is at most 0.5 s: a wait of a second is the Retry-After.
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %s, before Retry-After's 1s", waited)
	}
}

func TestOpenAIServerErrorsExhaustRetries(t *testing.T) {
	const retries = 1
	s := llmtest.New(t, llmtest.Reply{Status: 500}, llmtest.Reply{Status: 500})
	c := newClient(t, s.URL, func(o *llm.Options) { o.MaxRetries = retries })
	_, err := c.Complete(t.Context(), llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	for _, want := range []string{s.URL, "HTTP 500 Internal Server Error", "after 2 attempts", "llmtest: scripted status 500"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(s.Requests()); n != retries+1 {
		t.Errorf("%d requests, want %d", n, retries+1)
	}
	noKey(t, err)
}

func TestOpenAIRejected(t *testing.T) {
	for _, status := range []int{400, 401, 404} {
		s := llmtest.New(t, llmtest.Reply{Status: status})
		_, err := newClient(t, s.URL).Complete(t.Context(), llm.Request{Messages: user("x")})
		if !errors.Is(err, llm.ErrRejected) || errors.Is(err, llm.ErrUnavailable) {
			t.Errorf("%d: error %v, want ErrRejected only", status, err)
			continue
		}
		for _, want := range []string{s.URL, fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)), "after 1 attempt:", fmt.Sprintf("llmtest: scripted status %d", status)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("%d: %d requests, want 1 (no retry)", status, n)
		}
	}
}

func TestOpenAIModelDown(t *testing.T) {
	s := llmtest.New(t)
	s.Close()
	c := newClient(t, s.URL, func(o *llm.Options) { o.MaxRetries = 1 })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a hang fails, not blocks the run
	defer cancel()
	_, err := c.Complete(ctx, llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want ErrUnavailable (not a timeout)", err)
	}
	for _, want := range []string{s.URL, "unreachable after 2 attempts", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestOpenAITimeoutBoundsTheCall(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Delay: time.Minute, Content: "late"})
	c := newClient(t, s.URL, func(o *llm.Options) { o.Timeout = 200 * time.Millisecond })
	_, err := c.Complete(t.Context(), llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want ErrUnavailable wrapping the deadline", err)
	}
	if !strings.Contains(err.Error(), "no answer within llm.timeout 200ms") || !strings.Contains(err.Error(), s.URL) {
		t.Errorf("error %q", err)
	}
}

func TestOpenAIRetryAfterBeyondTimeout(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 429, RetryAfter: "3600"})
	c := newClient(t, s.URL, func(o *llm.Options) { o.Timeout = 5 * time.Second })
	_, err := c.Complete(t.Context(), llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "HTTP 429") {
		t.Fatalf("error %v, want ErrUnavailable reporting the 429 at once", err)
	}
}

func TestOpenAICancel(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Delay: time.Minute, Content: "late"})
	c := newClient(t, s.URL)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, llm.Request{Messages: user("x")})
		done <- err
	}()
	testenv.Eventually(t, "the request to arrive", func() bool { return len(s.Requests()) == 1 })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrUnavailable) {
			t.Errorf("error %v, want context.Canceled only", err)
		}
	case <-time.After(testenv.WaitBound):
		t.Fatal("Complete did not return after its context was cancelled")
	}

	// Cancelled with a cause: both are kept.
	errStop := errors.New("user pressed ctrl-c")
	s.Add(llmtest.Reply{Delay: time.Minute})
	cctx, ccancel := context.WithCancelCause(t.Context())
	go func() {
		_, err := c.Complete(cctx, llm.Request{Messages: user("x")})
		done <- err
	}()
	testenv.Eventually(t, "the second request to arrive", func() bool { return len(s.Requests()) == 2 })
	ccancel(errStop)
	if err := <-done; !errors.Is(err, context.Canceled) || !errors.Is(err, errStop) {
		t.Errorf("error %v, want context.Canceled and its cause", err)
	}
}

// TestOpenAINeverNamesTheKey: an endpoint that echoes the key it refused
// (OpenAI's "Incorrect API key provided: …" does), and a base URL with a
// password: no error in the chain shows either.
func TestOpenAINeverNamesTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		msg, _ := json.Marshal("Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error"}}`, msg)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://proxyuser:pr0xyPassw0rd@", 1) + "/v1"
	c := newClient(t, base, func(o *llm.Options) { o.APIKey = "plain-key-without-a-known-shape-42" })
	_, err := c.Complete(t.Context(), llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrRejected) {
		t.Fatalf("error %v, want ErrRejected", err)
	}
	noKey(t, err, "plain-key-without-a-known-shape-42", "pr0xyPassw0rd")
	for _, want := range []string{"proxyuser:xxxxx@", "HTTP 401", "Incorrect API key provided: xxxxx"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(c.Endpoint(), "pr0xyPassw0rd") {
		t.Errorf("Endpoint() = %q", c.Endpoint())
	}
}

// TestOpenAIOtherEndpointShapes: what local servers and proxies send.
func TestOpenAIOtherEndpointShapes(t *testing.T) {
	var (
		mu   sync.Mutex
		next func(w http.ResponseWriter)
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		next(w)
	}))
	defer srv.Close()
	set := func(status int, contentType, body string) {
		mu.Lock()
		defer mu.Unlock()
		next = func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	c := newClient(t, srv.URL+"/v1", func(o *llm.Options) { o.MaxRetries = 0 })
	complete := func() (*llm.Response, error) { return c.Complete(t.Context(), llm.Request{Messages: user("x")}) }

	set(502, "text/html", "<html><body>502 Bad Gateway</body></html>")
	if _, err := complete(); !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), "HTTP 502 Bad Gateway after 1 attempt: <html><body>502 Bad Gateway</body></html>") {
		t.Errorf("HTML 502: %v", err)
	}
	set(404, "application/json", `{"error":"model \"llama9\" not found, try pulling it first"}`)
	if _, err := complete(); !errors.Is(err, llm.ErrRejected) || !strings.Contains(err.Error(), `model "llama9" not found, try pulling it first`) {
		t.Errorf("Ollama-style 404: %v", err)
	}
	set(200, "application/json", `{"id":"x","object":"chat.completion","model":"m","choices":[]}`)
	if _, err := complete(); !errors.Is(err, llm.ErrBadResponse) || !strings.Contains(err.Error(), "no choices") {
		t.Errorf("no choices: %v", err)
	}
	set(200, "application/json", `not json`)
	if _, err := complete(); !errors.Is(err, llm.ErrBadResponse) {
		t.Errorf("garbage: %v", err)
	}
	set(200, "application/json", `{"id":"abc","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
		"tool_calls":[{"function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{\"a\":1}"}}]}}]}`)
	resp, err := complete()
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.ToolCalls; len(got) != 2 || got[0].ID == "" || got[0].Name != "f" || got[1] != (llm.ToolCall{ID: "c2", Name: "g", Arguments: `{"a":1}`}) {
		t.Errorf("tool calls %+v (the first with an id made up)", got)
	}
	if resp.Usage != (llm.Usage{}) || resp.Model != "m" {
		t.Errorf("usage %+v model %q", resp.Usage, resp.Model)
	}
	set(200, "application/json", `{"id":"r","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"","refusal":"I can't help with that."}}]}`)
	if resp, err := complete(); err != nil || resp.Message.Content != "I can't help with that." {
		t.Errorf("refusal: %+v %v", resp, err)
	}
}

func TestNewOpenAINotConfigured(t *testing.T) {
	_, err := openai.New(llm.Options{})
	if !errors.Is(err, llm.ErrNotConfigured) {
		t.Fatalf("error %v, want ErrNotConfigured", err)
	}
	for _, want := range []string{"llm.base_url", "A2ABUS_LLM_BASE_URL", "llm.model", "A2ABUS_LLM_MODEL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	_, err = openai.New(llm.Options{BaseURL: "http://127.0.0.1:1/v1"})
	if !errors.Is(err, llm.ErrNotConfigured) || strings.Contains(err.Error(), "base_url") || !strings.Contains(err.Error(), "A2ABUS_LLM_MODEL") {
		t.Errorf("no model: %v", err)
	}
	for _, o := range []llm.Options{
		{BaseURL: "ftp://u:hunter2@host/v1", Model: "m"},
		{BaseURL: "127.0.0.1:8080", Model: "m"},
		{BaseURL: "http://h/v1", Model: "m", MaxRetries: 11},
		{BaseURL: "http://h/v1", Model: "m", Timeout: -time.Second},
	} {
		_, err := openai.New(o)
		if !errors.Is(err, llm.ErrNotConfigured) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%+v: error %v, want ErrNotConfigured without the password", o, err)
		}
	}
}

// BenchmarkOpenAIComplete measures one Complete against the scripted server
// on loopback: the SDK's request building, the HTTP round trip and the
// mapping both ways (the "model" answers at once).
func BenchmarkOpenAIComplete(b *testing.B) {
	call := llmtest.Call("invoke_agent", map[string]any{"agent": "ResearchAgent"})
	s := llmtest.NewFunc(b, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{ToolCalls: []llm.ToolCall{call}} })
	c, err := openai.New(llm.Options{BaseURL: s.URL, APIKey: testKey, Model: "m", Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Messages: user("tell me about otters"), Tools: []llm.Tool{{Name: "invoke_agent", Description: "call an agent"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Complete(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
