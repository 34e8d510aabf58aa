// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// Bounds of the robots.txt cache.
const (
	// robotsTTL is how long a host's robots.txt is kept.
	robotsTTL = time.Hour
	// robotsHosts bounds the hosts kept (the oldest goes first).
	robotsHosts = 256
	// maxRobotsBytes is how much of a robots.txt is read (RFC 9309 asks for at least 500 KiB).
	maxRobotsBytes = 512 << 10
)

// robotsCache keeps each host's robots.txt (scheme://host) for robotsTTL.
type robotsCache struct {
	f     *Fetcher
	mu    sync.Mutex
	hosts map[string]robotsEntry
}

type robotsEntry struct {
	data *robotstxt.RobotsData
	at   time.Time
}

func newRobotsCache(f *Fetcher) *robotsCache {
	return &robotsCache{f: f, hosts: map[string]robotsEntry{}}
}

// allowed returns nil when u's site lets the fetcher's user agent read u,
// ErrRobots when it does not. As RFC 9309 says: a robots.txt that is
// missing (4xx) allows everything, one that cannot be read (5xx, no
// answer) disallows everything; the latter is not cached.
func (c *robotsCache) allowed(ctx context.Context, u *url.URL) error {
	site := u.Scheme + "://" + u.Host
	c.mu.Lock()
	e, ok := c.hosts[site]
	c.mu.Unlock()
	if !ok || time.Since(e.at) > robotsTTL {
		data, err := c.load(ctx, site)
		if err != nil {
			return err
		}
		e = robotsEntry{data: data, at: time.Now()}
		c.put(site, e)
	}
	path := u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.data.TestAgent(cmpPath(path), c.f.opts.UserAgent) {
		return fmt.Errorf("%w: %s", ErrRobots, u.Redacted())
	}
	return nil
}

func cmpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// put stores e, dropping the oldest host when the cache is full.
func (c *robotsCache) put(site string, e robotsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.hosts) >= robotsHosts {
		var oldest string
		for h, x := range c.hosts {
			if oldest == "" || x.at.Before(c.hosts[oldest].at) {
				oldest = h
			}
		}
		delete(c.hosts, oldest)
	}
	c.hosts[site] = e
}

// load fetches site's robots.txt through the fetcher's client (the same
// address rules and redirects).
func (c *robotsCache) load(ctx context.Context, site string) (*robotstxt.RobotsData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, site+"/robots.txt", nil)
	if err != nil {
		return nil, fmt.Errorf("robots.txt of %s: %w", site, err)
	}
	req.Header.Set("User-Agent", c.f.opts.UserAgent)
	resp, err := c.f.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrForbiddenAddress) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: robots.txt of %s could not be read: %w", ErrRobots, site, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: robots.txt of %s could not be read: %w", ErrRobots, site, err)
	}
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("%w: robots.txt of %s answered %s", ErrRobots, site, resp.Status)
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		return nil, fmt.Errorf("%w: robots.txt of %s: %w", ErrRobots, site, err)
	}
	return data, nil
}
