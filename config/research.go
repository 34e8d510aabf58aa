// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"net/url"
	"time"
)

// Defaults of the research section's web backend (research.DefaultMaxPages,
// DefaultFetchTimeout and DefaultMaxPageBytes of internal/agents/research,
// which config does not import: the agent's package is not every program's).
const (
	DefaultResearchMaxPages     = 3
	DefaultResearchFetchTimeout = 10 * time.Second
	DefaultResearchMaxPageBytes = 2 << 20
)

// validate checks the research section.
func (c *ResearchConfig) validate() []error {
	var errs []error
	if c.DocsDir == "" {
		errs = append(errs, invalid("research.docs_dir", "must name a folder, got \"\""))
	}
	if c.SearchURL != "" {
		if u, err := url.Parse(c.SearchURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, invalid("research.search_url", "must be an http(s) URL such as http://searxng:8080, got %q", c.SearchURL))
		}
	}
	if c.MaxPages < 1 || c.MaxPages > 20 {
		errs = append(errs, invalid("research.max_pages", "must be 1 to 20, got %d", c.MaxPages))
	}
	if c.FetchTimeout <= 0 {
		errs = append(errs, invalid("research.fetch_timeout", "must be a positive duration such as \"10s\", got %s", c.FetchTimeout))
	}
	if c.MaxPageBytes < 1024 {
		errs = append(errs, invalid("research.max_page_bytes", "must be at least 1024, got %d", c.MaxPageBytes))
	}
	return errs
}
