// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Model is the model ResearchAgent writes its answers with. Without a
// Client it only ranks passages (offline, as `make run` needs).
type Model struct {
	// Client answers; nil ranks passages without an answer.
	Client llm.Client
	// Endpoint is the model's base URL (llm.base_url), named in warnings.
	Endpoint string
	// MaxTokens bounds the answer when > 0 (else the client's bound).
	MaxTokens int
}

// RegisterWithModel is Register with m writing a sourced answer from the
// top passages of every task: the passages go to the model numbered, the
// answer cites them by number, and the sources are listed after it. The
// passages stay attached as artifacts. A model failure leaves the ranked
// passages as a PARTIAL result with a warning naming the endpoint.
func RegisterWithModel(a *agent.Agent, docsDir string, m Model) error {
	if docsDir == "" {
		return ErrNoDocsDir
	}
	return RegisterDocs(a, Folder(docsDir), m)
}

// RegisterDocs is RegisterWithModel searching docs (a Folder, or Embedded
// files) instead of a folder named by its path.
func RegisterDocs(a *agent.Agent, docs Docs, m Model) error {
	if a == nil {
		return ErrNilAgent
	}
	if docs.fsys == nil {
		return ErrNoDocsDir
	}
	r := &researcher{docs: docs, model: m}
	if err := a.Handle(SkillResearch, r.handle); err != nil {
		return fmt.Errorf("research: register skill %q: %w", SkillResearch, err)
	}
	return nil
}

// answerPrompt is the system prompt of the answer.
const answerPrompt = "You answer a question using only the numbered passages you are given. " +
	"Cite the passages you use by their number in square brackets, like [1] or [2][3], right after the statement they support. " +
	"If the passages do not answer the question, say so plainly. Be concise. Do not list the sources: they are appended to your answer."

// Metadata keys of an answered result's Extra.
const (
	ExtraModel = "model"
	ExtraCited = "cited"
)

// citation matches a passage number cited in square brackets.
var citation = regexp.MustCompile(`\[(\d{1,3})\]`)

// answer asks the model for a sourced answer from top and fills res: the
// answer, the numbered sources, the tokens used and the passages cited. A
// model failure makes res PARTIAL with a warning; only the task's own end
// (cancel, deadline) is returned as an error.
func (r *researcher) answer(ctx context.Context, t *agent.Task, query string, top []Hit, res *agent.Result) error {
	progress(ctx, t, fmt.Sprintf("writing an answer from %s", count(len(top), "passage")), 0.8)
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nPassages:", query)
	for i, h := range top {
		fmt.Fprintf(&b, "\n\n[%d] (%s)\n%s", i+1, h.Passage.Name(), h.Passage.Text)
	}
	out, err := llm.Loop{Client: r.model.Client, MaxTokens: r.model.MaxTokens}.Run(ctx, []llm.Message{
		{Role: llm.RoleSystem, Content: answerPrompt}, {Role: llm.RoleUser, Content: b.String()},
	})
	if err == nil && strings.TrimSpace(out.Final) == "" {
		err = fmt.Errorf("%w: the answer is empty", llm.ErrBadResponse)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := err.Error()
		if r.model.Endpoint != "" && !strings.Contains(msg, r.model.Endpoint) {
			msg = fmt.Sprintf("model at %s: %s", r.model.Endpoint, msg)
		}
		res.Status = a2a.StatusPartial
		res.Warnings = append(res.Warnings, "no answer written, the passages are ranked only: "+msg)
		if errors.Is(err, llm.ErrUnavailable) {
			res.Warnings = append(res.Warnings, "the model is unavailable: asking again later may give an answer")
		}
		return nil
	}
	cited, stray := citations(out.Final, len(top))
	if len(stray) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the answer cites %v, which are not among the %d passages", stray, len(top)))
	}
	if len(cited) == 0 {
		res.Warnings = append(res.Warnings, "the answer cites no passage")
	}
	var msg strings.Builder
	msg.WriteString(strings.TrimSpace(out.Final))
	msg.WriteString("\n\nSources:")
	for i, h := range top {
		fmt.Fprintf(&msg, "\n[%d] %s", i+1, h.Passage.Name())
	}
	res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, msg.String())
	res.TokensUsed = int64(out.Usage.TotalTokens)
	res.Extra[ExtraModel] = out.Model
	res.Extra[ExtraCited] = cited
	return nil
}

// citations returns the passage numbers text cites within 1..n, in order
// of first citation, and the numbers it cites outside that range.
func citations(text string, n int) (cited, stray []int) {
	cited, stray = []int{}, []int{}
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		k, _ := strconv.Atoi(m[1])
		switch {
		case k >= 1 && k <= n && !slices.Contains(cited, k):
			cited = append(cited, k)
		case (k < 1 || k > n) && !slices.Contains(stray, k):
			stray = append(stray, k)
		}
	}
	return cited, stray
}
