// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// Errors of Register.
var (
	// ErrNilAgent: Register was given no agent.
	ErrNilAgent = errors.New("research: nil agent")
	// ErrNoDocsDir: Register was given no docs folder.
	ErrNoDocsDir = errors.New("research: no docs folder")
)

// TopPassages is how many passages a research result carries at most.
const TopPassages = 5

// excerptChars bounds the best passage quoted in the result message.
const excerptChars = 400

// Register registers the research skill on a, searching the .md and .txt
// files under docsDir. The folder is listed at every task, so it may change
// (or appear) while the agent runs: what an earlier task read is reused
// only while no file was added, removed or changed. It ranks passages without a model
// (offline); RegisterWithModel also writes an answer.
func Register(a *agent.Agent, docsDir string) error {
	return RegisterWithModel(a, docsDir, Model{})
}

// researcher runs the research skill over one set of documents.
type researcher struct {
	docs Docs
	// web, when set, is searched instead of docs.
	web   *Web
	model Model
}

// handle reads the folder (or searches the web and reads the pages found),
// ranks the passages for the request text and
// returns the best TopPassages as artifacts, publishing progress as it goes;
// with a model, the message is an answer written from them.
func (r *researcher) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	query := strings.TrimSpace(t.Text())
	if query == "" {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "research: the question (the request text) is empty")
	}
	terms := Tokenize(query)
	if len(terms) == 0 {
		return nil, a2a.NewError(a2a.CodeInvalidInput,
			"research: the question %q has no searchable words (only one-letter words and stop words)", query)
	}

	var g gathered
	var err error
	if r.web != nil {
		g, err = r.fromWeb(ctx, t, query)
	} else {
		g, err = r.fromFolder(ctx, t)
	}
	if err != nil {
		return nil, err
	}

	progress(ctx, t, fmt.Sprintf("ranking %d passages", len(g.passages)), 0.5)
	var all []Hit
	if g.index != nil {
		all = g.index.rank(terms, 0)
	} else {
		all = Rank(g.passages, terms, 0)
	}
	g.extra["matches"] = len(all)
	res := &agent.Result{Warnings: g.warnings, Extra: g.extra}
	top := all[:min(len(all), TopPassages)]
	res.Confidence = Confidence(terms, all, top)
	if len(all) == 0 {
		res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, fmt.Sprintf("Nothing in the %s searched matched '%s'.", count(g.sources, g.noun), query))
		return res, nil
	}
	res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, summary(query, g.noun, all, top))
	for i, h := range top {
		res.Artifacts = append(res.Artifacts, &a2a.Artifact{
			ID:       spec.ArtifactID(fmt.Sprintf("passage-%d", i+1)),
			Name:     h.Passage.Name(),
			Parts:    []*a2a.Part{a2a.NewTextPart(h.Passage.Text)},
			Metadata: map[string]any{"path": h.Passage.Path, "heading": h.Passage.Heading, "score": h.Score},
		})
	}
	if r.model.Client != nil {
		if err := r.answer(ctx, t, query, top, res); err != nil {
			return nil, err
		}
		if cited, ok := res.Extra[ExtraCited].([]int); ok && len(cited) == 0 {
			res.Confidence = capped(res.Confidence, a2a.ConfidenceLow) // an answer that cites no passage
		}
	}
	return res, nil
}

// fromFolder gathers the passages of the docs: those read for an earlier
// task (or by Preload) when no file changed since, else read now.
func (r *researcher) fromFolder(ctx context.Context, t *agent.Task) (gathered, error) {
	c, err := r.docs.corpus(ctx, func(read, of int) {
		switch {
		case read == 0:
			progress(ctx, t, fmt.Sprintf("reading %d files", of), 0)
		case read%100 == 0:
			progress(ctx, t, fmt.Sprintf("read %d of %d files", read, of), 0.5*float64(read)/float64(of))
		}
	})
	switch {
	case ctx.Err() != nil:
		return gathered{}, ctx.Err()
	case errors.Is(err, fs.ErrNotExist):
		return gathered{}, a2a.NewError(a2a.CodeExecutionFailed, "research: %s does not exist", r.docs)
	case err != nil:
		return gathered{}, a2a.NewError(a2a.CodeExecutionFailed, "research: list %s: %v", r.docs, err)
	case len(c.files) == 0:
		return gathered{}, a2a.NewError(a2a.CodeExecutionFailed, "research: %s has no .md or .txt files", r.docs)
	}
	return gathered{
		index: c.index, passages: c.index.passages, sources: len(c.files), noun: "file",
		warnings: slices.Clone(c.warnings),
		extra:    map[string]any{"files": len(c.files), "passages": len(c.index.passages)},
	}, nil
}

// searchFailed is the task's error when the search endpoint failed: worth
// another attempt (the endpoint may come back).
func searchFailed(err error) error {
	e := a2a.NewError(a2a.CodeExecutionFailed, "research: search: %v", err)
	e.Retryable = true
	return e
}

// summary is the result message: how many passages in how many sources
// (noun: "file", "page") matched, the best one's source, then an excerpt of it.
func summary(query, noun string, all, top []Hit) string {
	files := map[string]bool{}
	for _, h := range all {
		files[h.Passage.Path] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s in %s for '%s'; best: %s", count(len(all), "passage"), count(len(files), noun), query, top[0].Passage.Name())
	if len(all) > len(top) {
		fmt.Fprintf(&b, " (the top %d are attached)", len(top))
	}
	b.WriteString("\n\n")
	b.WriteString(excerpt(top[0].Passage.Text, excerptChars))
	return b.String()
}

// excerpt shortens text to at most n characters, cutting at a word boundary.
func excerpt(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	cut := string([]rune(text)[:n])
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n-*") + " …" // no dangling list marker
}

// progress publishes a status update; status is advisory, so a failure is ignored.
func progress(ctx context.Context, t *agent.Task, text string, fraction float64) {
	_ = t.Progress(ctx, text, fraction)
}

// count formats n and noun, plural unless n is 1: "1 file", "3 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
