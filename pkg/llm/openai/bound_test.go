// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package openai_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llm/openai"
)

// TestCompleteBoundsTheAnswerWhileReading: a 50 MB answer used to be read
// whole (an LLM agent went to 630 MB); reading stops at
// Options.MaxResponseBytes with a *ResponseTooLargeError naming the bound,
// the server manages to write little more than that, and the call
// allocates a small multiple of the bound, not of the answer.
func TestCompleteBoundsTheAnswerWhileReading(t *testing.T) {
	const answer, bound = 50 << 20, 1 << 20
	srv := llmtest.New(t, llmtest.Reply{ContentBytes: answer})
	c := newClient(t, srv.URL, func(o *llm.Options) { o.MaxResponseBytes, o.MaxRetries = bound, 0 })

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Complete(context.Background(), llm.Request{Messages: user("say a lot")})
	runtime.ReadMemStats(&after)
	srv.Close() // waits for the handler: what it wrote is final
	t.Logf("the server wrote %d bytes; the call allocated %d bytes", srv.Written(), after.TotalAlloc-before.TotalAlloc)

	var tooLarge *llm.ResponseTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != bound || !errors.Is(err, llm.ErrResponseTooLarge) || !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("err = %v, want a *ResponseTooLargeError of limit %d wrapping ErrResponseTooLarge and ErrBadResponse", err, bound)
	}
	if msg := err.Error(); !strings.Contains(msg, "llm.max_response_bytes (1 MiB") || !strings.Contains(msg, srv.URL) {
		t.Errorf("message %q names neither the key, the bound nor the endpoint", msg)
	}
	// Socket buffers hold some megabytes the client never read.
	if w := srv.Written(); w > 16<<20 {
		t.Errorf("the server wrote %d bytes of the %d-byte answer; reading should stop near the bound of %d", w, answer, bound)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("the call allocated %d bytes for an answer bounded to %d", alloc, bound)
	}
}

// TestCompleteAnswerWithinTheBound: an answer under the bound is read whole;
// with no bound set the default applies.
func TestCompleteAnswerWithinTheBound(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{ContentBytes: 512 << 10}, llmtest.Reply{ContentBytes: llm.DefaultMaxResponseBytes + 1})
	c := newClient(t, srv.URL, func(o *llm.Options) { o.MaxResponseBytes = 1 << 20 })
	resp, err := c.Complete(context.Background(), llm.Request{Messages: user("say some")})
	if err != nil || len(resp.Message.Content) != 512<<10 {
		t.Fatalf("an answer of 512 KiB under a bound of 1 MiB: %v", err)
	}
	d := newClient(t, srv.URL, func(o *llm.Options) { o.MaxRetries = 0 })
	_, err = d.Complete(context.Background(), llm.Request{Messages: user("say more")})
	var tooLarge *llm.ResponseTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != llm.DefaultMaxResponseBytes {
		t.Fatalf("an answer past the default bound: err = %v, want a *ResponseTooLargeError of limit %d", err, llm.DefaultMaxResponseBytes)
	}
	if _, err := openai.New(llm.Options{BaseURL: srv.URL, Model: "m", MaxResponseBytes: -1}); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("a negative bound: %v, want ErrNotConfigured", err)
	}
}
