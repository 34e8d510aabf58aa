// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/llm"
)

// modelHTTP sends every model request of the process: one connection pool
// however many clients are built.
var modelHTTP = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// Model builds the model client of the node's llm section (llm.base_url,
// api_key, model, max_tokens, temperature, timeout, max_retries,
// max_response_bytes), logging to the node's logger. The client is the one
// the program registered (llm.Register; a2abus registers pkg/llm/openai):
// in a program that registered none the error wraps llm.ErrNotLinked. With
// no base URL or model it wraps llm.ErrNotConfigured, naming the keys and
// variables to set.
func (n *Node) Model() (llm.Client, error) { return NewModel(n.Config.LLM, n.Log) }

// NewModel is Node.Model for a program that has a configuration but no
// node (one that needs only the model); log may be nil.
func NewModel(cfg config.LLMConfig, log *zap.Logger) (llm.Client, error) {
	c, err := llm.New(llm.Options{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model,
		MaxTokens: cfg.MaxTokens, Temperature: cfg.Temperature,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, MaxResponseBytes: cfg.MaxResponseBytes,
		HTTPClient: modelHTTP, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("node: model: %w", err)
	}
	return c, nil
}
