// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package llmtest is a scripted OpenAI-compatible Chat Completions server
// for tests: it plays recorded dialogues (answers, tool calls, HTTP errors
// with Retry-After) in order, checks each request it answers, and records
// every request. No model is involved.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llm/openai"
)

// Reply is one scripted answer of the server.
type Reply struct {
	// Content is the assistant's text.
	Content string
	// ToolCalls are the calls the assistant asks for (see Call).
	ToolCalls []llm.ToolCall
	// Status, when not 0 or 200, answers with that HTTP status and an
	// OpenAI-style error body instead of a completion.
	Status int
	// RetryAfter, with Status, is sent as the Retry-After header.
	RetryAfter string
	// Usage is reported as given; zero reports an estimate from the texts.
	Usage llm.Usage
	// Delay holds the answer back this long (or until the request ends).
	Delay time.Duration
	// Expect, when set, checks the request this reply answers; an error
	// fails the test (the reply is still sent).
	Expect func(Request) error
	// ContentBytes, when > 0, makes the content that many 'x' bytes,
	// streamed in chunks without being held in memory (Content is ignored):
	// an answer too large to be read whole. The server stops writing when
	// the client stops reading; Written counts what it managed to write.
	ContentBytes int64
}

// Request is a request the server received, decoded.
type Request struct {
	Model     string
	Messages  []llm.Message
	Tools     []string // the tool names offered
	MaxTokens int
	// Header holds the HTTP headers (Authorization included).
	Header http.Header
}

// Last returns the request's last message.
func (r Request) Last() llm.Message {
	if len(r.Messages) == 0 {
		return llm.Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Server is the scripted endpoint. Its URL is the base URL to configure
// (llm.base_url); it serves POST {URL}/chat/completions.
type Server struct {
	URL string

	tb      testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	script  []Reply
	respond func(Request) Reply
	reqs    []Request
	calls   atomic.Int64
	written atomic.Int64
}

// New starts a server that answers with replies in order; it is closed
// when the test ends. A request past the script fails the test.
func New(tb testing.TB, replies ...Reply) *Server {
	s := &Server{tb: tb, script: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	tb.Cleanup(s.srv.Close)
	return s
}

// NewFunc starts a server that answers every request with respond(request),
// for dialogues decided by what the request holds (concurrency, benchmarks).
func NewFunc(tb testing.TB, respond func(Request) Reply) *Server {
	s := New(tb)
	s.respond = respond
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is the number of scripted replies not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Written is the number of response body bytes the server has written so
// far, all answers together.
func (s *Server) Written() int64 { return s.written.Load() }

// Close stops the server: later requests fail to connect (a model down).
func (s *Server) Close() { s.srv.Close() }

// Call builds a tool call of name with args (marshalled to JSON unless a
// string) and a fresh id.
func Call(name string, args any) llm.ToolCall {
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("llmtest.Call %s: %v", name, err))
		}
		raw = string(b)
	}
	return llm.ToolCall{ID: fmt.Sprintf("call_%d", callIDs.Add(1)), Name: name, Arguments: raw}
}

var callIDs atomic.Int64

// wire shapes of the Chat Completions API (only what the server uses).
type wireRequest struct {
	Model               string        `json:"model"`
	Messages            []wireMessage `json:"messages"`
	Tools               []wireTool    `json:"tools"`
	MaxTokens           int           `json:"max_tokens"`
	MaxCompletionTokens int           `json:"max_completion_tokens"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// text reads a message content: a string, or an array of text parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	var wr wireRequest
	if err == nil {
		err = json.Unmarshal(body, &wr)
	}
	if err != nil {
		s.tb.Errorf("llmtest: bad request body: %v", err)
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req := Request{Model: wr.Model, MaxTokens: max(wr.MaxTokens, wr.MaxCompletionTokens), Header: r.Header.Clone()}
	for _, m := range wr.Messages {
		msg := llm.Message{Role: m.Role, Content: text(m.Content), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	reply, ok := s.next(req)
	if !ok {
		s.tb.Errorf("llmtest: request %d past the end of the script; last message: %+v", s.calls.Load(), req.Last())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"llmtest: script exhausted","type":"server_error"}}`)
		return
	}
	if reply.Expect != nil {
		if err := reply.Expect(req); err != nil {
			s.tb.Errorf("llmtest: request %d: %v", s.calls.Load(), err)
		}
	}
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
	}
	w.Header().Set("Content-Type", "application/json")
	w = countingWriter{w, &s.written}
	if reply.ContentBytes > 0 {
		streamContent(w, req, reply)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		w.WriteHeader(reply.Status)
		msg, _ := json.Marshal(fmt.Sprintf("llmtest: scripted status %d", reply.Status))
		_, _ = fmt.Fprintf(w, `{"error":{"message":%s,"type":"scripted","code":%s}}`, msg, strconv.Quote(strconv.Itoa(reply.Status)))
		return
	}
	_ = json.NewEncoder(w).Encode(completion(req, reply))
}

// next returns the reply to req and records req.
func (s *Server) next(req Request) (Reply, bool) {
	s.calls.Add(1)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	respond := s.respond
	if respond == nil && len(s.script) == 0 {
		s.mu.Unlock()
		return Reply{}, false
	}
	var reply Reply
	if respond == nil {
		reply, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	if respond != nil {
		reply = respond(req)
	}
	return reply, true
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// streamContent writes the completion of reply with ContentBytes bytes of
// content, chunk by chunk, until done or the client goes away.
func streamContent(w http.ResponseWriter, req Request, reply Reply) {
	const marker = "llmtest-streamed-content"
	size := reply.ContentBytes
	reply.Content, reply.ContentBytes = marker, 0
	whole, err := json.Marshal(completion(req, reply))
	if err != nil {
		panic(fmt.Sprintf("llmtest: encode a completion: %v", err))
	}
	prefix, suffix, _ := strings.Cut(string(whole), marker)
	if _, err := io.WriteString(w, prefix); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("x", 64<<10))
	for left := size; left > 0; left -= int64(len(chunk)) {
		if _, err := w.Write(chunk[:min(int64(len(chunk)), left)]); err != nil {
			return
		}
	}
	_, _ = io.WriteString(w, suffix)
}

// completion is the Chat Completions response body of reply.
func completion(req Request, reply Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": reply.Content}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		calls := make([]map[string]any, len(reply.ToolCalls))
		for i, c := range reply.ToolCalls {
			calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	usage := reply.Usage
	if usage == (llm.Usage{}) {
		for _, m := range req.Messages {
			usage.PromptTokens += llm.EstimateTokens(m.Content)
		}
		usage.CompletionTokens = llm.EstimateTokens(reply.Content) + 10*len(reply.ToolCalls)
		usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	}
	model := req.Model
	if model == "" {
		model = "scripted"
	}
	return map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   usage,
	}
}

// Client returns an OpenAI-compatible client of the endpoint at url (a
// Server's URL, or a closed one's: a model down) asking for model.
func Client(tb testing.TB, url, model string) llm.Client {
	tb.Helper()
	m, err := openai.New(llm.Options{BaseURL: url, Model: model, Timeout: 30 * time.Second})
	if err != nil {
		tb.Fatalf("llmtest: client of %s: %v", url, err)
	}
	return m
}
