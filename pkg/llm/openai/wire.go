// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/a2abus/a2abus/pkg/llm"
)

// params maps req onto the SDK's Chat Completions request.
func (c *Client) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:       shared.ChatModel(c.opts.Model),
		Temperature: sdk.Float(c.opts.Temperature),
	}
	if req.MaxTokens < 0 {
		return p, fmt.Errorf("max tokens must not be negative, got %d", req.MaxTokens)
	}
	// max_tokens, not max_completion_tokens: OpenAI still accepts it for
	// chat models, and vLLM, Ollama, llama.cpp server and older LiteLLM
	// releases know only max_tokens (they ignore the newer name, leaving the
	// completion unbounded).
	if n := req.MaxTokens; n > 0 {
		p.MaxTokens = sdk.Int(int64(n))
	} else if n := c.opts.MaxTokens; n > 0 {
		p.MaxTokens = sdk.Int(int64(n))
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("no messages")
	}
	p.Messages = make([]sdk.ChatCompletionMessageParamUnion, 0, len(req.Messages))
	for i, m := range req.Messages {
		msg, err := toMessage(m)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, msg)
	}
	for i, t := range req.Tools {
		tool, err := toTool(t)
		if err != nil {
			return p, fmt.Errorf("tool %d (%s): %w", i, t.Name, err)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

// toMessage maps one message.
func toMessage(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		return sdk.SystemMessage(m.Content), nil
	case llm.RoleUser:
		return sdk.UserMessage(m.Content), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("a tool message needs the id of the call it answers")
		}
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		var a sdk.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = sdk.String(m.Content)
		}
		for j, tc := range m.ToolCalls {
			if tc.ID == "" || tc.Name == "" {
				return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool call %d needs an id and a name, got %q and %q", j, tc.ID, tc.Name)
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	default:
		return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q (want system, user, assistant or tool)", m.Role)
	}
}

// toTool maps one function tool; no parameters means an empty object.
func toTool(t llm.Tool) (sdk.ChatCompletionToolUnionParam, error) {
	if t.Name == "" {
		return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("a tool needs a name")
	}
	params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	if len(bytes.TrimSpace(t.Parameters)) > 0 {
		params = shared.FunctionParameters{}
		if err := json.Unmarshal(t.Parameters, &params); err != nil {
			return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("parameters must be a JSON Schema object: %w", err)
		}
	}
	def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
	if t.Description != "" {
		def.Description = sdk.String(t.Description)
	}
	return sdk.ChatCompletionFunctionTool(def), nil
}

// fromCompletion maps the first choice back. llm.Tool calls without an id get
// one (some local servers send none) so the tool message can name its call.
func fromCompletion(cc *sdk.ChatCompletion) (*llm.Response, error) {
	if cc == nil || len(cc.Choices) == 0 {
		return nil, fmt.Errorf("the completion has no choices")
	}
	ch := cc.Choices[0]
	msg := llm.Message{Role: llm.RoleAssistant, Content: ch.Message.Content}
	if msg.Content == "" && ch.Message.Refusal != "" {
		msg.Content = ch.Message.Refusal
	}
	for i, tc := range ch.Message.ToolCalls {
		call := llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		if tc.Type == "custom" {
			call.Name, call.Arguments = tc.Custom.Name, tc.Custom.Input
		}
		if call.Name == "" {
			return nil, fmt.Errorf("tool call %d has no function name", i)
		}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%s_%d", cc.ID, i)
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return &llm.Response{
		Message:      msg,
		Model:        cc.Model,
		FinishReason: ch.FinishReason,
		Usage: llm.Usage{
			PromptTokens:     int(cc.Usage.PromptTokens),
			CompletionTokens: int(cc.Usage.CompletionTokens),
			TotalTokens:      int(cc.Usage.TotalTokens),
		},
	}, nil
}

// maxErrorBody bounds the error body kept from a failed attempt.
const maxErrorBody = 8 << 10

// attempts records, through an SDK middleware run on every attempt, how
// many were made and how the last one ended: the SDK reports a connection
// failure or an unreadable error body without the status, and this keeps
// the classification independent of what it decodes. It also bounds each
// answer's body to limit bytes while the SDK reads it (boundedBody).
type attempts struct {
	limit int64 // the bound of an answer's body; set before the first attempt

	mu     sync.Mutex
	n      int
	status int
	body   []byte
	err    error
	over   bool // the last answer's body was longer than limit
}

func (a *attempts) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	a.status, a.body, a.err, a.over = 0, nil, err, false
	if res != nil {
		a.status = res.StatusCode
		switch {
		case res.Body == nil:
		case res.StatusCode >= 400:
			body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
			_ = res.Body.Close()
			res.Body = io.NopCloser(bytes.NewReader(body))
			a.body = body
		case a.limit > 0:
			b := &boundedBody{rc: res.Body, left: a.limit, over: a.setOver}
			if res.ContentLength > a.limit { // refused before a byte is read
				b.left, b.err = 0, llm.ErrResponseTooLarge
				a.over = true
			}
			res.Body = b
		}
	}
	return res, err
}

func (a *attempts) setOver() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.over = true
}

// tooLarge reports whether the last answer's body passed the bound.
func (a *attempts) tooLarge() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.over
}

// boundedBody is an answer's body that gives at most left more bytes: the
// read that would pass the bound fails with llm.ErrResponseTooLarge (and calls
// over), so the SDK, which reads the whole body into memory, stops there.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
	over func()
	err  error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the bound tells a longer body from one of exactly left bytes
	}
	n, err := b.rc.Read(p)
	if int64(n) <= b.left {
		b.left -= int64(n)
		return n, err
	}
	n, b.left, b.err = int(b.left), 0, llm.ErrResponseTooLarge
	b.over()
	return n, b.err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

func (a *attempts) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

func (a *attempts) last() (n, status int, body []byte, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n, a.status, a.body, a.err
}

// bodyMessage reads an error message from an error body: OpenAI's
// {"error": {"message": …}}, {"error": "…"}, {"message": …} or {"detail": …}
// (shapes local servers use), else the text itself; one line, bounded.
func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &nested) == nil && nested.Message != "":
			return oneLine(nested.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return oneLine(s)
		case v.Message != "":
			return oneLine(v.Message)
		case v.Detail != nil:
			return oneLine(fmt.Sprint(v.Detail))
		}
	}
	return oneLine(string(body))
}

// maxMessage bounds the endpoint message quoted in an error.
const maxMessage = 300

// oneLine folds s onto one line of at most maxMessage bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
