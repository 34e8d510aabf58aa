// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/redact"
)

// Bounds of the llm, chat, workflow and orchestrator sections.
const (
	MaxLLMRetries     = 10
	MaxLLMTemperature = 2.0
	MaxToolRounds     = 100
	MinHistoryChars   = 1000
	MinHistoryTurns   = 1
	MaxChatInput      = 64 << 20
	MaxWorkflowSteps  = 10_000
	// MaxRouteQuestions bounds orchestrator.route_max_questions.
	MaxRouteQuestions = 10
)

// LLMTurnBound is the longest the model requests of one chat turn may take:
// TurnBound(llm.timeout, chat.max_tool_rounds). An LLM-backed agent compares
// it with agent.max_task_duration, which must leave room for it; Validate
// does not, since only LLM agents need it.
func (c *Config) LLMTurnBound() time.Duration { return TurnBound(c.LLM.Timeout, c.Chat.MaxToolRounds) }

// TurnBound is the longest the model requests of one turn may take:
// requestTimeout (llm.timeout, which bounds one request, retries included)
// × (toolRounds + 1) — every round that asks for tools, then the final
// answer. Tools' own time comes on top. It saturates at the longest
// time.Duration rather than overflow.
func TurnBound(requestTimeout time.Duration, toolRounds int) time.Duration {
	requests := time.Duration(max(toolRounds, 0) + 1)
	if requestTimeout > math.MaxInt64/requests {
		return math.MaxInt64
	}
	return requestTimeout * requests
}

// validate reports the bad llm.* keys in key order.
func (c *LLMConfig) validate() []error {
	var errs []error
	switch u, err := url.Parse(c.BaseURL); {
	case c.BaseURL == "":
	case !strings.Contains(c.BaseURL, "://"):
		// "127.0.0.1:11434/v1" or "ollama": url.Parse's verdict would not help.
		errs = append(errs, invalid("llm.base_url", "must be an http:// or https:// URL such as http://127.0.0.1:11434/v1, got %q", redact.URL(c.BaseURL)))
	case err == nil && u.Host == "" && (u.Scheme == "http" || u.Scheme == "https"): // url.Parse lower-cases the scheme
		errs = append(errs, invalid("llm.base_url", "must name a host, such as http://127.0.0.1:11434/v1, got %q", redact.URL(c.BaseURL)))
	default:
		errs = append(errs, validateURL("llm.base_url", c.BaseURL, "http", "https"))
	}
	if c.BaseURL != "" && c.Model == "" {
		errs = append(errs, invalid("llm.model", "must name the model when llm.base_url is set (A2ABUS_LLM_MODEL), got \"\""))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, invalid("llm.max_tokens", "must be 0 (the endpoint's bound) or positive, got %d", c.MaxTokens))
	}
	if t := c.Temperature; math.IsNaN(t) || t < 0 || t > MaxLLMTemperature {
		errs = append(errs, invalid("llm.temperature", "must be within 0..%g, got %g", MaxLLMTemperature, t))
	}
	errs = append(errs, positive("llm.timeout", c.Timeout))
	if n := c.MaxRetries; n < 0 || n > MaxLLMRetries {
		errs = append(errs, invalid("llm.max_retries", "must be within 0..%d, got %d", MaxLLMRetries, n))
	}
	errs = append(errs, byteBound("llm.max_response_bytes", c.MaxResponseBytes), byteBound("llm.max_tool_argument_bytes", c.MaxToolArgumentBytes))
	return errs
}

// validate reports a bad workflow.* key.
func (c *WorkflowConfig) validate() []error {
	errs := []error{byteBound("workflow.max_render_bytes", c.MaxRenderBytes)}
	if n := c.MaxSteps; n < 1 || n > MaxWorkflowSteps {
		errs = append(errs, invalid("workflow.max_steps", "must be within 1..%d, got %d", MaxWorkflowSteps, n))
	}
	return errs
}

// validate reports the bad orchestrator.* keys: 0 ≤ route_floor ≤
// route_threshold ≤ 1 with route_threshold > 0, 0 ≤ route_margin < 1, and
// route_max_questions within 1..MaxRouteQuestions.
func (c *OrchestratorConfig) validate() []error {
	var errs []error
	unit := func(f float64) bool { return !math.IsNaN(f) && f >= 0 && f <= 1 }
	thresholdOK := unit(c.RouteThreshold) && c.RouteThreshold > 0
	if !thresholdOK {
		errs = append(errs, invalid("orchestrator.route_threshold", "must be above 0 and at most 1, got %g", c.RouteThreshold))
	}
	if m := c.RouteMargin; !unit(m) || m == 1 {
		errs = append(errs, invalid("orchestrator.route_margin", "must be at least 0 and below 1, got %g", m))
	}
	switch f := c.RouteFloor; {
	case !unit(f):
		errs = append(errs, invalid("orchestrator.route_floor", "must be within 0..1, got %g", f))
	case thresholdOK && f > c.RouteThreshold:
		errs = append(errs, invalid("orchestrator.route_floor", "must not exceed orchestrator.route_threshold (%g), got %g", c.RouteThreshold, f))
	}
	if n := c.RouteMaxQuestions; n < 1 || n > MaxRouteQuestions {
		errs = append(errs, invalid("orchestrator.route_max_questions", "must be within 1..%d, got %d", MaxRouteQuestions, n))
	}
	return errs
}

// byteBound checks a size bound in bytes: within MinMessageBytes..MaxMessageBytes (1 KiB..128 MiB).
func byteBound(key string, n int) error {
	if n < MinMessageBytes || n > MaxMessageBytes {
		return invalid(key, "must be within %d..%d bytes (1 KiB..128 MiB), got %d", MinMessageBytes, MaxMessageBytes, n)
	}
	return nil
}

func (c *ChatConfig) validate() []error {
	var errs []error
	if n := c.MaxToolRounds; n < 1 || n > MaxToolRounds {
		errs = append(errs, invalid("chat.max_tool_rounds", "must be within 1..%d, got %d", MaxToolRounds, n))
	}
	if c.TokenBudget < 0 {
		errs = append(errs, invalid("chat.token_budget", "must be 0 (unbounded) or positive, got %d", c.TokenBudget))
	}
	if c.MaxHistoryTurns < MinHistoryTurns {
		errs = append(errs, invalid("chat.max_history_turns", "must be at least %d, got %d", MinHistoryTurns, c.MaxHistoryTurns))
	}
	if c.MaxHistoryChars < MinHistoryChars {
		errs = append(errs, invalid("chat.max_history_chars", "must be at least %d, got %d", MinHistoryChars, c.MaxHistoryChars))
	}
	if n := c.MaxInputBytes; n < 1 || n > MaxChatInput {
		errs = append(errs, invalid("chat.max_input_bytes", "must be within 1..%d, got %d", MaxChatInput, n))
	}
	return errs
}
