// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package web_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/research/web"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

// webAgent runs ResearchAgent searching through the fake SearXNG at
// searchURL with model, and returns a caller of it.
func webAgent(t *testing.T, cfg research.WebConfig, model research.Model) *caller.Caller {
	t.Helper()
	broker := inproc.NewBroker(inproc.Options{})
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = broker.Close(); _ = mem.Close() })
	web.Register()
	w, err := research.NewWeb(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Card: research.Card(), Bus: broker.Connect(), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := research.RegisterWeb(a, w, model); err != nil {
		t.Fatal(err)
	}
	c, err := caller.New(caller.Options{Name: "Tester", Bus: broker.Connect(), Memory: mem, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	testworld.Start(t, c, caller.ErrClosed)
	return c
}

func ask(t *testing.T, c *caller.Caller, question string) *caller.Outcome {
	t.Helper()
	out, err := c.Call(ctx(t), caller.Request{Target: research.DefaultName, Skill: research.SkillResearch, Text: question, Timeout: 50 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResearchAgentAnswersFromTheWeb: the search finds four pages; the
// robots-disallowed, binary and oversized ones are skipped with a warning
// each, and the model writes its answer from the article's readable text
// (no menu, script or footer), citing it; the sources are the page's URL.
func TestResearchAgentAnswersFromTheWeb(t *testing.T) {
	s := newSite(t)
	srv := searx(t, func(string) []map[string]string {
		return []map[string]string{
			{"url": s.URL + "/private/notes", "title": "Secret", "content": "quorum"},
			{"url": s.URL + "/article", "title": "Quorum queues explained", "content": "Quorum queues use Raft."},
			{"url": s.URL + "/data.bin", "title": "Binary", "content": "quorum"},
			{"url": s.URL + "/big", "title": "Big", "content": "quorum"},
			{"url": s.URL + "/notes.txt", "title": "Not fetched", "content": "beyond max_pages"},
		}
	})
	model := llmtest.New(t, llmtest.Reply{Content: "Quorum queues replicate with Raft [1].",
		Usage: llm.Usage{TotalTokens: 50},
		Expect: func(r llmtest.Request) error {
			u := r.Messages[len(r.Messages)-1].Content
			if !strings.Contains(u, "Raft consensus algorithm") || !strings.Contains(u, "("+s.URL+"/article)") {
				return fmt.Errorf("the prompt lacks the article's text: %q", u)
			}
			for _, junk := range []string{"navigation menu", "tracking", "cookie banner", "secret", "binary"} {
				if strings.Contains(u, junk) {
					return fmt.Errorf("the prompt has %q: %q", junk, u)
				}
			}
			return nil
		}})
	c := webAgent(t, research.WebConfig{SearchURL: srv.URL, MaxPages: 4, MaxPageBytes: 4096, FetchTimeout: 30 * time.Second, AllowPrivate: true},
		research.Model{Client: llmtest.Client(t, model.URL, "gpt-test"), Endpoint: model.URL})
	out := ask(t, c, "how are quorum queues replicated")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	r := out.Result
	text := r.Text()
	if !strings.HasPrefix(text, "Quorum queues replicate with Raft [1].\n\nSources:\n[1] "+s.URL+"/article") {
		t.Errorf("answer %q", text)
	}
	warnings := strings.Join(r.Warnings, "\n")
	for _, want := range []string{"/private/notes: web: disallowed by robots.txt", "/data.bin", "application/octet-stream", "/big", "page too large"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q: %v", want, r.Warnings)
		}
	}
	if len(r.Warnings) != 3 || r.Metadata.Extra["pages"] != float64(1) || r.Metadata.TokensUsed != 50 || r.Status != a2a.StatusSuccess {
		t.Errorf("warnings %v, metadata %+v, status %s", r.Warnings, r.Metadata, r.Status)
	}
	if model.Remaining() != 0 {
		t.Errorf("the model was not asked")
	}
}

// TestResearchAgentFallsBackToSnippets: when no page can be read, the
// search results' snippets are ranked instead, with a warning; an
// unreachable search endpoint is a retryable failure.
func TestResearchAgentFallsBackToSnippets(t *testing.T) {
	s := newSite(t)
	srv := searx(t, func(string) []map[string]string {
		return []map[string]string{{"url": s.URL + "/private/notes", "title": "Quorum secrets", "content": "Quorum queues elect a leader."}}
	})
	c := webAgent(t, research.WebConfig{SearchURL: srv.URL, AllowPrivate: true}, research.Model{})
	out := ask(t, c, "quorum leader")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	if text := out.Result.Text(); !strings.Contains(text, "Found 1 passage in 1 search result") || !strings.Contains(text, "Quorum queues elect a leader.") {
		t.Errorf("answer %q", text)
	}
	if w := strings.Join(out.Result.Warnings, "\n"); !strings.Contains(w, "snippets are ranked instead") {
		t.Errorf("warnings %v", out.Result.Warnings)
	}

	srv.Close() // the search endpoint is down
	out = ask(t, c, "quorum leader")
	var ae *a2a.Error
	if err := out.Err(); !errors.As(err, &ae) || ae.Code != a2a.CodeExecutionFailed || !ae.Retryable || !strings.Contains(ae.Message, "research: search:") {
		t.Fatalf("search down: %v, want a retryable EXECUTION_FAILED naming the search", err)
	}
}
