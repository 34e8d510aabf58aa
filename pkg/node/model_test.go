// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/llm"
)

func TestModelFromConfiguration(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Content: "hi", Expect: func(r llmtest.Request) error {
		if r.Model != "qwen3" || r.MaxTokens != 99 || r.Header.Get("Authorization") != "Bearer k-123456" {
			return errors.New("request does not carry the llm section: " + r.Model + " " + r.Header.Get("Authorization"))
		}
		return nil
	}})
	cfg := config.Default()
	s.Add(llmtest.Reply{ContentBytes: 2 << 10})
	cfg.LLM = config.LLMConfig{BaseURL: s.URL, APIKey: "k-123456", Model: "qwen3", MaxTokens: 99, Temperature: 0.7, Timeout: time.Minute, MaxRetries: 1,
		MaxResponseBytes: 1 << 10, MaxToolArgumentBytes: 1 << 10}
	n, err := Open(t.Context(), cfg, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	m, err := n.Model()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}})
	if err != nil || resp.Message.Content != "hi" {
		t.Fatalf("Complete = %+v, %v", resp, err)
	}
	_, err = m.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "more"}}})
	if tl := (*llm.ResponseTooLargeError)(nil); !errors.As(err, &tl) || tl.Limit != 1<<10 {
		t.Fatalf("an answer past llm.max_response_bytes: %v, want a *ResponseTooLargeError of limit 1024", err)
	}
}

func TestModelNotConfigured(t *testing.T) {
	n, err := Open(t.Context(), config.Default(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	_, err = n.Model()
	if !errors.Is(err, llm.ErrNotConfigured) {
		t.Fatalf("Model() = %v, want llm.ErrNotConfigured", err)
	}
	for _, want := range []string{"llm.base_url", "A2ABUS_LLM_BASE_URL", "llm.model", "A2ABUS_LLM_MODEL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
