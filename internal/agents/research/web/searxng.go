// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package web

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/agents/research"
)

// maxSearchBytes bounds a search response.
const maxSearchBytes = 4 << 20

// searchClient is the searches' default client: its own transport, which
// takes no proxy from the environment and keeps few idle connections.
var searchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}}

// SearXNG searches through a SearXNG instance's JSON API (or any endpoint
// that answers GET <BaseURL>/search?q=…&format=json with
// {"results":[{"url","title","content"}]}). The endpoint is the operator's
// own (often a cluster address), so it is not held to the page fetcher's
// address rules.
type SearXNG struct {
	// BaseURL is the instance's root, e.g. http://searxng:8080.
	BaseURL string
	// UserAgent is sent with the request; default DefaultUserAgent.
	UserAgent string
	// Timeout bounds one search; default research.DefaultFetchTimeout.
	Timeout time.Duration
	// Client makes the request; default one shared client that takes no
	// proxy from the environment.
	Client *http.Client
}

// searxResponse is the part of SearXNG's JSON the search reads.
type searxResponse struct {
	Results []struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search asks the endpoint for query and returns its first limit results
// with an http(s) URL, in its order.
func (s *SearXNG) Search(ctx context.Context, query string, limit int) ([]research.SearchResult, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = research.DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	endpoint := strings.TrimRight(s.BaseURL, "/") + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.BaseURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", cmp.Or(s.UserAgent, DefaultUserAgent))
	client := cmp.Or(s.Client, searchClient)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.BaseURL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("search %s: %w %s (is format=json enabled in its settings.yml search.formats?)", s.BaseURL, ErrStatus, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchBytes+1))
	if err != nil {
		return nil, fmt.Errorf("search %s: read: %w", s.BaseURL, err)
	}
	if len(body) > maxSearchBytes {
		return nil, fmt.Errorf("search %s: %w: the response is larger than %d bytes", s.BaseURL, ErrTooLarge, maxSearchBytes)
	}
	var r searxResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("search %s: decode the JSON answer: %w", s.BaseURL, err)
	}
	var out []research.SearchResult
	for _, x := range r.Results {
		if len(out) == limit {
			break
		}
		if u, err := url.Parse(x.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		out = append(out, research.SearchResult{URL: x.URL, Title: strings.TrimSpace(x.Title), Snippet: strings.TrimSpace(x.Content)})
	}
	return out, nil
}
