// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package openai is a2abus's model client for any OpenAI-compatible Chat
// Completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM),
// built on the official openai-go SDK. It lives apart from pkg/llm so that
// only the programs that run a model link the SDK: such a program calls
// Register once (a2abus does), and node.Node.Model then builds this client.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Client is an llm.Client for any OpenAI-compatible Chat Completions
// endpoint, built on the official openai-go SDK, whose retry loop (backoff,
// Retry-After) it uses. It is safe for concurrent use.
type Client struct {
	opts     llm.Options
	endpoint string // BaseURL with any password hidden: what errors and logs name
	service  sdk.ChatCompletionService
	log      *zap.Logger
}

var _ llm.Client = (*Client)(nil)

// maxMaxRetries bounds llm.Options.MaxRetries (config's llm.max_retries has the same bound).
const maxMaxRetries = 10

// Register makes this client the program's model client (llm.Register):
// node.Node.Model, and every agent of the process that runs a model, build
// it from the llm section.
func Register() { llm.Register(func(o llm.Options) (llm.Client, error) { return New(o) }) }

// New checks o and returns a client. A missing base URL or model is
// llm.ErrNotConfigured naming the keys and environment variables that set them.
func New(o llm.Options) (*Client, error) {
	var missing []string
	if strings.TrimSpace(o.BaseURL) == "" {
		missing = append(missing, "llm.base_url (A2ABUS_LLM_BASE_URL)")
	}
	if strings.TrimSpace(o.Model) == "" {
		missing = append(missing, "llm.model (A2ABUS_LLM_MODEL)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: set %s", llm.ErrNotConfigured, strings.Join(missing, " and "))
	}
	endpoint := redact.URL(o.BaseURL)
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: llm.base_url must be an http:// or https:// URL, got %q", llm.ErrNotConfigured, endpoint)
	}
	if o.MaxRetries < 0 || o.MaxRetries > maxMaxRetries {
		return nil, fmt.Errorf("%w: llm.max_retries must be within 0..%d, got %d", llm.ErrNotConfigured, maxMaxRetries, o.MaxRetries)
	}
	if o.Timeout < 0 || o.MaxTokens < 0 {
		return nil, fmt.Errorf("%w: llm.timeout and llm.max_tokens must not be negative, got %s and %d", llm.ErrNotConfigured, o.Timeout, o.MaxTokens)
	}
	if o.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("%w: llm.max_response_bytes must not be negative, got %d", llm.ErrNotConfigured, o.MaxResponseBytes)
	}
	if o.MaxResponseBytes == 0 {
		o.MaxResponseBytes = llm.DefaultMaxResponseBytes
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	// NewChatCompletionService, not sdk.NewClient: the client would read
	// OPENAI_API_KEY, OPENAI_BASE_URL and friends from the environment, and
	// send an OpenAI key found there to whatever endpoint llm.base_url names.
	reqOpts := []option.RequestOption{
		option.WithBaseURL(o.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(o.MaxRetries),
	}
	if o.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(o.APIKey))
	}
	if o.Timeout > 0 && o.Timeout < 2*time.Minute {
		// A Retry-After longer than the whole call may take ends the retries
		// at once (the endpoint's 429 is reported) instead of sleeping until
		// the timeout. It also caps the backoff, which stays below it anyway.
		reqOpts = append(reqOpts, option.WithMaxRetryDelay(o.Timeout))
	}
	log := o.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Client{
		opts:     o,
		endpoint: endpoint,
		service:  sdk.NewChatCompletionService(reqOpts...),
		log:      log,
	}, nil
}

// Endpoint is the base URL the client talks to, any password in it hidden.
func (c *Client) Endpoint() string { return c.endpoint }

// Model is the model name the client requests.
func (c *Client) Model() string { return c.opts.Model }

// Complete sends req as one Chat Completions request (retried as llm.Options
// says) and maps the first choice back. Errors wrap llm.ErrUnavailable,
// llm.ErrRejected or llm.ErrBadResponse, or the caller's context error, and name
// the endpoint, never the key.
func (c *Client) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := c.params(req)
	if err != nil {
		return nil, c.scrub(fmt.Errorf("%w: not sent to %s: %w", llm.ErrRejected, c.endpoint, err))
	}
	callCtx := ctx
	if c.opts.Timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	att := attempts{limit: int64(c.opts.MaxResponseBytes)}
	start := time.Now()
	completion, err := c.service.New(callCtx, params, option.WithMiddleware(att.middleware))
	if err != nil && att.tooLarge() && ctx.Err() == nil {
		return nil, &llm.ResponseTooLargeError{Endpoint: c.endpoint, Limit: att.limit}
	}
	if err != nil {
		return nil, c.scrub(c.classify(ctx, callCtx, &att, err))
	}
	resp, err := fromCompletion(completion)
	if err != nil {
		return nil, c.scrub(fmt.Errorf("%w: from %s: %w", llm.ErrBadResponse, c.endpoint, err))
	}
	c.log.Debug("llm completion",
		zap.String("endpoint", c.endpoint), zap.String("model", resp.Model),
		zap.String("finish_reason", resp.FinishReason), zap.Int("tool_calls", len(resp.Message.ToolCalls)),
		zap.Int("prompt_tokens", resp.Usage.PromptTokens), zap.Int("completion_tokens", resp.Usage.CompletionTokens),
		zap.Int("attempts", att.count()), zap.Duration("took", time.Since(start)))
	return resp, nil
}

// classify turns a failed request into the port's errors. ctx is the
// caller's context, callCtx the one bounded by llm.Options.Timeout.
func (c *Client) classify(ctx, callCtx context.Context, att *attempts, err error) error {
	n, status, body, lastErr := att.last()
	tries := fmt.Sprintf("%d attempt", n)
	if n != 1 {
		tries += "s"
	}
	switch {
	case ctx.Err() != nil: // the caller gave up: its error, not the model's
		if cause := context.Cause(ctx); cause != ctx.Err() {
			return fmt.Errorf("llm: request to %s stopped after %s: %w: %w", c.endpoint, tries, ctx.Err(), cause)
		}
		return fmt.Errorf("llm: request to %s stopped after %s: %w", c.endpoint, tries, ctx.Err())
	case callCtx.Err() != nil:
		last := ""
		if status != 0 {
			last = fmt.Sprintf("; last answer %s", statusText(status))
		} else if lastErr != nil {
			last = "; last failure: " + lastErr.Error()
		}
		return fmt.Errorf("%w: %s gave no answer within llm.timeout %s (%s%s): %w",
			llm.ErrUnavailable, c.endpoint, c.opts.Timeout, tries, last, callCtx.Err())
	case status >= 400:
		sentinel := llm.ErrRejected
		if retriable(status) {
			sentinel = llm.ErrUnavailable
		}
		msg := c.endpointMessage(err, body)
		return fmt.Errorf("%w: %s answered %s after %s: %s", sentinel, c.endpoint, statusText(status), tries, msg)
	case status == 0:
		cause := err
		if lastErr != nil {
			cause = lastErr
		}
		return fmt.Errorf("%w: %s unreachable after %s: %s", llm.ErrUnavailable, c.endpoint, tries, cause.Error())
	default: // a 2xx the SDK could not read
		return fmt.Errorf("%w: from %s: %s", llm.ErrBadResponse, c.endpoint, err.Error())
	}
}

// retriable reports whether status means "try later" (retried by the SDK,
// then reported as llm.ErrUnavailable).
func retriable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return fmt.Sprintf("HTTP %d %s", status, t)
	}
	return fmt.Sprintf("HTTP %d", status)
}

// endpointMessage is the endpoint's own error message: the SDK's decoded
// one, else what the captured body says.
func (c *Client) endpointMessage(err error, body []byte) string {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && strings.TrimSpace(apiErr.Message) != "" {
		return oneLine(apiErr.Message)
	}
	if msg := bodyMessage(body); msg != "" {
		return msg
	}
	return "(no message)"
}

// scrub hides the API key and any other secret-looking text in err's
// message (an endpoint may echo the key it refused), keeping what err wraps.
func (c *Client) scrub(err error) error {
	msg := redact.String(err.Error())
	if c.opts.APIKey != "" {
		msg = strings.ReplaceAll(msg, c.opts.APIKey, redact.Secret)
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

// scrubbed is an error whose message had secrets removed. Unwrap skips
// the unscrubbed message and returns what it wrapped (the sentinels, a
// context error), so errors.Is works and no error in the chain names the key.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }

func (e *scrubbed) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}
