// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package web is ResearchAgent's web backend: a search through a
// self-hosted metasearch endpoint's JSON API (SearXNG's), and page fetching
// with readable-text extraction (go-readability), bounded in address,
// robots.txt, content type, size, time and redirects. It links an HTML
// parser, so only the programs that run ResearchAgent register it
// (Register, from main), as the model client is.
package web

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/a2abus/a2abus/internal/agents/research"
)

// DefaultUserAgent is sent with every request and matched in robots.txt.
const DefaultUserAgent = "a2abus-ResearchAgent/" + research.Version

// Errors of a fetch; each wraps the page's address in its message.
var (
	// ErrBadURL: the address is not an absolute http(s) URL.
	ErrBadURL = errors.New("web: not an http(s) URL")
	// ErrForbiddenAddress: the host resolves to a loopback, private,
	// link-local or otherwise internal address, and AllowPrivate is off.
	ErrForbiddenAddress = errors.New("web: address not allowed")
	// ErrRobots: the site's robots.txt disallows the page for the agent.
	ErrRobots = errors.New("web: disallowed by robots.txt")
	// ErrContentType: the page is neither HTML nor plain text.
	ErrContentType = errors.New("web: not HTML or text")
	// ErrTooLarge: the page's body is larger than MaxBytes.
	ErrTooLarge = errors.New("web: page too large")
	// ErrStatus: the page answered with a status other than 200.
	ErrStatus = errors.New("web: unexpected status")
	// ErrTooManyRedirects: more redirects than MaxRedirects.
	ErrTooManyRedirects = errors.New("web: too many redirects")
)

// Register makes research.NewWeb build this backend (call it once, in
// main, in a program that runs ResearchAgent with research.search_url).
func Register() { research.RegisterWebBackend(New) }

// New builds the backend of c: a SearXNG client of c.SearchURL and a
// Fetcher with c's bounds.
func New(c research.WebConfig) (research.Web, error) {
	u, err := url.Parse(c.SearchURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return research.Web{}, fmt.Errorf("%w: research.search_url %q", ErrBadURL, c.SearchURL)
	}
	f := NewFetcher(FetchOptions{Timeout: c.FetchTimeout, MaxBytes: c.MaxPageBytes, AllowPrivate: c.AllowPrivate, UserAgent: c.UserAgent})
	s := &SearXNG{BaseURL: c.SearchURL, UserAgent: f.opts.UserAgent, Timeout: f.opts.Timeout}
	return research.Web{Searcher: s, Fetcher: f, MaxPages: c.MaxPages}, nil
}
