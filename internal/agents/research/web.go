// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2abus/a2abus/pkg/agent"
)

// SearchResult is one page a search found.
type SearchResult struct {
	URL     string
	Title   string
	Snippet string
}

// Searcher finds pages about a query: a metasearch endpoint (package
// research/web: SearXNG's JSON API), or a test's.
type Searcher interface {
	// Search returns at most limit results, best first.
	Search(ctx context.Context, query string, limit int) ([]SearchResult, error)
}

// Page is a fetched page's readable text.
type Page struct {
	URL   string
	Title string
	Text  string
}

// Fetcher fetches a page and extracts its readable text, within its own
// bounds (address, robots.txt, content type, size, time).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (Page, error)
}

// Defaults of the web backend (WebConfig, the research.* keys).
const (
	DefaultMaxPages     = 3
	DefaultFetchTimeout = 10 * time.Second
	DefaultMaxPageBytes = 2 << 20
)

// Web is the research skill's web backend: it searches, then fetches the
// first MaxPages results and ranks their paragraphs.
type Web struct {
	Searcher Searcher
	Fetcher  Fetcher
	// MaxPages is how many results are fetched; default DefaultMaxPages.
	MaxPages int
}

// WebConfig configures the linked web backend (NewWeb).
type WebConfig struct {
	// SearchURL is the metasearch endpoint's root (SearXNG: GET
	// <SearchURL>/search?q=…&format=json).
	SearchURL string
	// MaxPages is how many results are fetched per task.
	MaxPages int
	// FetchTimeout bounds each fetch (robots.txt and the page).
	FetchTimeout time.Duration
	// MaxPageBytes bounds a page's body; a larger page is skipped.
	MaxPageBytes int64
	// AllowPrivate lets pages on loopback, private and link-local
	// addresses be fetched (off: a search result cannot make the agent
	// read the cluster's own services).
	AllowPrivate bool
	// UserAgent is sent with every request and matched in robots.txt.
	UserAgent string
}

// ErrWebNotLinked: the program does not link the web backend
// (research/web.Register was not called), yet research.search_url is set.
var ErrWebNotLinked = errors.New("research: the web backend is not linked into this program")

var (
	webMu      sync.Mutex
	webBackend func(WebConfig) (Web, error)
)

// RegisterWebBackend makes NewWeb build webs with newWeb; research/web's
// Register calls it. The last registration wins.
func RegisterWebBackend(newWeb func(WebConfig) (Web, error)) {
	webMu.Lock()
	defer webMu.Unlock()
	webBackend = newWeb
}

// NewWeb builds the registered web backend for c; ErrWebNotLinked when
// none is registered.
func NewWeb(c WebConfig) (Web, error) {
	webMu.Lock()
	f := webBackend
	webMu.Unlock()
	if f == nil {
		return Web{}, ErrWebNotLinked
	}
	return f(c)
}

// ErrNoWeb: RegisterWeb was given a Web without a Searcher or Fetcher.
var ErrNoWeb = errors.New("research: the web backend has no searcher or fetcher")

// RegisterWeb registers the research skill on a, searching the web with w
// instead of a folder; with m's Client it writes a sourced answer from the
// best paragraphs of the pages read, as RegisterWithModel does.
func RegisterWeb(a *agent.Agent, w Web, m Model) error {
	if a == nil {
		return ErrNilAgent
	}
	if w.Searcher == nil || w.Fetcher == nil {
		return ErrNoWeb
	}
	if w.MaxPages <= 0 {
		w.MaxPages = DefaultMaxPages
	}
	r := &researcher{web: &w, model: m}
	if err := a.Handle(SkillResearch, r.handle); err != nil {
		return fmt.Errorf("research: register skill %q: %w", SkillResearch, err)
	}
	return nil
}

// gathered is what a task's passages were read from.
type gathered struct {
	passages []Passage
	// index, when set, holds passages tokenized (the docs' corpus).
	index    *index
	warnings []string
	// sources counts the documents read; noun names them ("file", "page").
	sources int
	noun    string
	extra   map[string]any
}

// fromWeb searches for query, fetches the first MaxPages results at once
// and splits their readable text into passages; a page that cannot be
// read is a warning. When none can be, the results' snippets are ranked.
func (r *researcher) fromWeb(ctx context.Context, t *agent.Task, query string) (gathered, error) {
	w := r.web
	progress(ctx, t, "searching the web", 0)
	results, err := w.Searcher.Search(ctx, query, max(2*w.MaxPages, 10))
	if err != nil {
		if ctx.Err() != nil {
			return gathered{}, ctx.Err()
		}
		return gathered{}, searchFailed(err)
	}
	g := gathered{noun: "page", extra: map[string]any{"results": len(results)}}
	top := results[:min(len(results), w.MaxPages)]
	progress(ctx, t, fmt.Sprintf("reading %s", count(len(top), "page")), 0.2)
	pages := make([]Page, len(top))
	errs := make([]error, len(top))
	var wg sync.WaitGroup
	for i, res := range top {
		wg.Go(func() { pages[i], errs[i] = w.Fetcher.Fetch(ctx, res.URL) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return gathered{}, err
	}
	for i, res := range top {
		if errs[i] != nil {
			g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: %v", res.URL, errs[i]))
			continue
		}
		g.sources++
		g.passages = append(g.passages, SplitText(pages[i].URL, pages[i].Text)...)
	}
	if g.sources == 0 {
		g.noun = "search result"
		for _, res := range results {
			if res.Snippet != "" {
				g.sources++
				g.passages = append(g.passages, newPassage(res.URL, "", res.Title+"\n"+res.Snippet))
			}
		}
		if len(top) > 0 {
			g.warnings = append(g.warnings, "no page could be read: the search results' snippets are ranked instead")
		}
	}
	g.extra["pages"] = g.sources
	g.extra["passages"] = len(g.passages)
	return g, nil
}
