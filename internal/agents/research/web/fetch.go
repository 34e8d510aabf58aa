// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"

	"github.com/a2abus/a2abus/internal/agents/research"
)

// DefaultMaxRedirects is how many redirects a fetch follows.
const DefaultMaxRedirects = 5

// FetchOptions bound a Fetcher; zero values take the defaults.
type FetchOptions struct {
	// Timeout bounds one fetch, robots.txt included; default research.DefaultFetchTimeout.
	Timeout time.Duration
	// MaxBytes bounds a page's body; default research.DefaultMaxPageBytes.
	MaxBytes int64
	// MaxRedirects bounds the redirects followed; default DefaultMaxRedirects.
	MaxRedirects int
	// AllowPrivate lets the fetcher connect to loopback, private,
	// link-local, CGNAT and unspecified addresses (tests; an intranet).
	AllowPrivate bool
	// UserAgent is sent and matched in robots.txt; default DefaultUserAgent.
	UserAgent string
}

// Fetcher fetches pages and extracts their readable text. The address
// check runs on every connection (after DNS resolution, redirects
// included), so a name that resolves to an internal address is refused
// too. Safe for concurrent use.
type Fetcher struct {
	opts   FetchOptions
	client *http.Client
	robots *robotsCache
}

// NewFetcher returns a Fetcher bounded by o.
func NewFetcher(o FetchOptions) *Fetcher {
	o.Timeout = cmp.Or(o.Timeout, research.DefaultFetchTimeout)
	o.MaxBytes = cmp.Or(o.MaxBytes, research.DefaultMaxPageBytes)
	o.MaxRedirects = cmp.Or(o.MaxRedirects, DefaultMaxRedirects)
	o.UserAgent = cmp.Or(o.UserAgent, DefaultUserAgent)
	dialer := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		dialer.Control = refuseInternal
	}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
	}
	f := &Fetcher{opts: o}
	f.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects {
				return fmt.Errorf("%w (%d)", ErrTooManyRedirects, o.MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: redirect to %s", ErrBadURL, req.URL.Redacted())
			}
			return nil
		},
	}
	f.robots = newRobotsCache(f)
	return f
}

// refuseInternal is the dialer's check of the address it is about to
// connect to.
func refuseInternal(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || internal(ip.Unmap()) {
		return fmt.Errorf("%w: %s is an internal address (research.allow_private_addresses)", ErrForbiddenAddress, host)
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// internal reports whether ip is not a public unicast address.
func internal(ip netip.Addr) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip)
}

// Fetch reads the page at raw if robots.txt allows it and it is HTML or
// text within the bounds, and returns its readable text: the article
// go-readability finds in HTML, or the text as it is.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (research.Page, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return research.Page{}, fmt.Errorf("%w: %q", ErrBadURL, raw)
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	if err := f.robots.allowed(ctx, u); err != nil {
		return research.Page{}, err
	}
	body, final, ctype, err := f.get(ctx, u, "text/html, application/xhtml+xml, text/plain;q=0.8")
	if err != nil {
		return research.Page{}, err
	}
	media, _, _ := mime.ParseMediaType(ctype)
	switch media {
	case "text/html", "application/xhtml+xml":
		article, err := readability.FromReader(bytes.NewReader(body), final)
		if err != nil {
			return research.Page{}, fmt.Errorf("extract the text of %s: %w", final.Redacted(), err)
		}
		var text strings.Builder
		if article.Node != nil {
			if err := article.RenderText(&text); err != nil {
				return research.Page{}, fmt.Errorf("extract the text of %s: %w", final.Redacted(), err)
			}
		}
		return research.Page{URL: final.String(), Title: strings.TrimSpace(article.Title()), Text: strings.TrimSpace(text.String())}, nil
	case "text/plain":
		return research.Page{URL: final.String(), Text: strings.TrimSpace(string(body))}, nil
	}
	return research.Page{}, fmt.Errorf("%w: %s is %q", ErrContentType, final.Redacted(), ctype)
}

// get fetches u and returns its body (at most MaxBytes), the final URL
// after redirects and its content type. The type is checked before the
// body is read: only HTML and text are read.
func (f *Fetcher) get(ctx context.Context, u *url.URL, accept string) ([]byte, *url.URL, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, "", fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", accept)
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said below, once
		}
		return nil, nil, "", fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer func() { _ = resp.Body.Close() }()
	final := resp.Request.URL
	ctype := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK {
		return nil, final, ctype, fmt.Errorf("fetch %s: %w %s", u.Redacted(), ErrStatus, resp.Status)
	}
	if media, _, _ := mime.ParseMediaType(ctype); !textual(media) {
		return nil, final, ctype, fmt.Errorf("%w: %s is %q", ErrContentType, final.Redacted(), ctype)
	}
	if resp.ContentLength > f.opts.MaxBytes {
		return nil, final, ctype, fmt.Errorf("%w: %s is %d bytes, above %d", ErrTooLarge, final.Redacted(), resp.ContentLength, f.opts.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, final, ctype, fmt.Errorf("fetch %s: read: %w", final.Redacted(), err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, final, ctype, fmt.Errorf("%w: %s is above %d bytes", ErrTooLarge, final.Redacted(), f.opts.MaxBytes)
	}
	return body, final, ctype, nil
}

// textual reports whether media is a type the fetcher reads.
func textual(media string) bool {
	switch media {
	case "text/html", "application/xhtml+xml", "text/plain":
		return true
	}
	return false
}
