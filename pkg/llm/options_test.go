// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/llm"
)

// TestNewBuildsTheRegisteredClient: without a registration New is an
// ErrNotLinked naming how to link one; with one, New passes the options to
// it and returns what it built.
func TestNewBuildsTheRegisteredClient(t *testing.T) {
	llm.Register(nil)
	_, err := llm.New(llm.Options{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if !errors.Is(err, llm.ErrNotLinked) || !strings.Contains(err.Error(), "openai.Register()") {
		t.Fatalf("New with nothing registered = %v, want ErrNotLinked naming openai.Register()", err)
	}
	var got llm.Options
	llm.Register(func(o llm.Options) (llm.Client, error) { got = o; return fixedClient{}, nil })
	t.Cleanup(func() { llm.Register(nil) })
	c, err := llm.New(llm.Options{BaseURL: "http://x/v1", Model: "m", MaxTokens: 7})
	if err != nil || c == nil {
		t.Fatalf("New = %v, %v", c, err)
	}
	if got.BaseURL != "http://x/v1" || got.Model != "m" || got.MaxTokens != 7 {
		t.Errorf("the factory was given %+v", got)
	}
}
