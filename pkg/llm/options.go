// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llm

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/fileread"
)

// Options configures a model client; config.LLMConfig maps onto it
// (node.Node.Model builds one from the configuration through New).
type Options struct {
	// BaseURL is the endpoint's API root (…/v1). Required.
	BaseURL string
	// APIKey is sent as a bearer token when set. It never appears in an error.
	APIKey string
	// Model is the model name sent with every request. Required.
	Model string
	// MaxTokens bounds each completion when > 0 (Request.MaxTokens overrides it).
	MaxTokens int
	// Temperature is the sampling temperature, sent as is (0 included).
	Temperature float64
	// Timeout bounds one Complete, retries and their waits included; 0 leaves
	// the bound to the caller's context.
	Timeout time.Duration
	// MaxRetries is how often a failed connection or a 408, 409, 429 or 5xx
	// answer is retried, with exponential backoff from 0.5 s or the
	// endpoint's Retry-After.
	MaxRetries int
	// MaxResponseBytes bounds the body of an answer, applied while it is
	// read: a longer one is a *ResponseTooLargeError, and no more of it is
	// read. 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int
	// HTTPClient sends the requests; nil uses a client of a2abus's own.
	HTTPClient *http.Client
	// Logger receives one debug line per completion; nil logs nowhere.
	Logger *zap.Logger
}

// DefaultMaxResponseBytes bounds an answer's body when Options.MaxResponseBytes
// is 0 (config's llm.max_response_bytes has the same default).
const DefaultMaxResponseBytes = 4 << 20

// ResponseTooLargeError is an answer longer than Options.MaxResponseBytes:
// reading stopped at the bound. It wraps ErrResponseTooLarge and ErrBadResponse.
type ResponseTooLargeError struct {
	// Endpoint is the base URL, any password hidden.
	Endpoint string
	// Limit is the bound in bytes.
	Limit int64
}

// Error names the endpoint and the bound.
func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("%v: %s sent an answer longer than llm.max_response_bytes (%s); reading stopped there",
		ErrResponseTooLarge, e.Endpoint, fileread.Size(e.Limit))
}

// Unwrap returns ErrResponseTooLarge and ErrBadResponse.
func (e *ResponseTooLargeError) Unwrap() []error { return []error{ErrResponseTooLarge, ErrBadResponse} }

// ErrNotLinked: New was called in a program that registered no model
// client (Register). The agent mains link none, so that what runs no model
// does not carry the client's SDK; a2abus registers pkg/llm/openai.
var ErrNotLinked = errors.New("llm: no model client is linked into this program")

// Factory builds a model client from Options (pkg/llm/openai.New is one).
type Factory func(Options) (Client, error)

var registered struct {
	mu sync.RWMutex
	f  Factory
}

// Register makes f the program's model client, which New builds; the last
// registration wins. A program calls it once, from main (or a package it
// links for the purpose, such as pkg/llm/openai's Register); nil removes it.
func Register(f Factory) {
	registered.mu.Lock()
	defer registered.mu.Unlock()
	registered.f = f
}

// New builds the registered model client from o, or returns an error
// wrapping ErrNotLinked when the program registered none.
func New(o Options) (Client, error) {
	registered.mu.RLock()
	f := registered.f
	registered.mu.RUnlock()
	if f == nil {
		return nil, fmt.Errorf("%w (a2abus links one; a program registers one with openai.Register() of github.com/a2abus/a2abus/pkg/llm/openai)", ErrNotLinked)
	}
	return f(o)
}
