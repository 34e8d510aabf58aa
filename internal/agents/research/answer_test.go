// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/llm"
)

// answerDocs are three passages about queues and one unrelated.
func answerDocs(t *testing.T) string {
	return writeDocs(t, map[string]string{
		"topology.md": "# Quorum queues\n\nQuorum queues replicate with Raft.\n\n# Classic queues\n\nClassic queues support priority.",
		"ops.txt":     "Dead letters collect poison queues messages.",
		"other.md":    "# Cooking\n\nBoil the pasta.",
	})
}

func TestResearchWritesSourcedAnswer(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Content: "Quorum queues replicate [1]; classic ones have priority [2].",
		Usage: llm.Usage{PromptTokens: 80, CompletionTokens: 12, TotalTokens: 92},
		Expect: func(r llmtest.Request) error {
			if len(r.Tools) != 0 || len(r.Messages) != 2 || r.Messages[0].Content != answerPrompt {
				return fmt.Errorf("request %+v", r)
			}
			u := r.Messages[1].Content
			if !strings.HasPrefix(u, "Question: quorum queues priority\n\nPassages:\n\n[1] (topology.md#") ||
				!strings.Contains(u, "[2] (topology.md#") || strings.Contains(u, "pasta") {
				return fmt.Errorf("user message %q", u)
			}
			return nil
		}})
	c := researchWorld(t, answerDocs(t), Model{Client: llmtest.Client(t, srv.URL, "gpt-test"), Endpoint: srv.URL})
	out, statuses := research(t, c, "quorum queues priority")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	text := out.Result.Text()
	want := "Quorum queues replicate [1]; classic ones have priority [2].\n\nSources:\n[1] "
	if !strings.HasPrefix(text, want) || !strings.Contains(text, "\n[2] topology.md#") || !strings.Contains(text, "ops.txt") || strings.Contains(text, "other.md") {
		t.Errorf("answer %q", text)
	}
	md := out.Result.Metadata
	if md.TokensUsed != 92 || md.Extra[ExtraModel] != "gpt-test" || fmt.Sprint(md.Extra[ExtraCited]) != "[1 2]" || len(out.Result.Warnings) != 0 {
		t.Errorf("metadata %+v, warnings %v", md, out.Result.Warnings)
	}
	if len(out.Result.Artifacts) != 3 || out.Result.Status != a2a.StatusSuccess {
		t.Errorf("%d artifacts, status %q", len(out.Result.Artifacts), out.Result.Status)
	}
	if !slices.Contains(statuses, "writing an answer from 3 passages") {
		t.Errorf("statuses %q", statuses)
	}
	// No match: no model request (the script has none left).
	out, _ = research(t, c, "kubernetes helm")
	if err := out.Err(); err != nil || !strings.HasPrefix(out.Result.Text(), "Nothing in the 3 files") {
		t.Errorf("no match: %v %q", err, out.Result.Text())
	}
}

func TestResearchAnswerCitationsChecked(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Content: "See [1] and [9]."}, llmtest.Reply{Content: "No citation here."})
	c := researchWorld(t, answerDocs(t), Model{Client: llmtest.Client(t, srv.URL, "m")})
	out, _ := research(t, c, "quorum queues")
	if w := out.Result.Warnings; len(w) != 1 || !strings.Contains(w[0], "cites [9], which are not among the 3 passages") {
		t.Errorf("warnings %v", w)
	}
	out, _ = research(t, c, "quorum queues")
	if w := out.Result.Warnings; len(w) != 1 || w[0] != "the answer cites no passage" {
		t.Errorf("warnings %v", w)
	}
}

func TestResearchModelDownRanksOnly(t *testing.T) {
	srv := llmtest.New(t)
	srv.Close()
	c := researchWorld(t, answerDocs(t), Model{Client: llmtest.Client(t, srv.URL, "m"), Endpoint: srv.URL})
	out, _ := research(t, c, "quorum queues")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	if out.Result.Status != a2a.StatusPartial || !strings.HasPrefix(out.Result.Text(), "Found ") || len(out.Result.Artifacts) == 0 {
		t.Errorf("status %q, text %q", out.Result.Status, out.Result.Text())
	}
	if w := out.Result.Warnings; len(w) != 2 || !strings.Contains(w[0], srv.URL) || !strings.Contains(w[0], "ranked only") || !strings.Contains(w[1], "unavailable") {
		t.Errorf("warnings %v", w)
	}
}

func TestRegisterWithModelRefusesBadArguments(t *testing.T) {
	if err := RegisterWithModel(nil, "docs", Model{}); !errors.Is(err, ErrNilAgent) {
		t.Errorf("nil agent: %v", err)
	}
	a, err := agent.New(agent.Options{Card: Card(), Bus: inproc.New(inproc.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := RegisterWithModel(a, "", Model{}); !errors.Is(err, ErrNoDocsDir) {
		t.Errorf("no folder: %v", err)
	}
}

func TestCitations(t *testing.T) {
	cited, stray := citations("a [2] b [1][2] c [0] d [12] [x]", 5)
	if fmt.Sprint(cited, stray) != "[2 1] [0 12]" {
		t.Errorf("cited %v, stray %v", cited, stray)
	}
}
