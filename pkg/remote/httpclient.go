// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// StatusError is an HTTP answer of the remote that the bridge acts on
// before any A2A parsing: a refused credential (401, 403, 407), a rate limit
// (429, with its Retry-After) and a gateway or server that is down for now
// (502, 503, 504). The last four are retried within the task's deadline.
type StatusError struct {
	Code       int           // the HTTP status code
	Status     string        // the status line, "503 Service Unavailable"
	RetryAfter time.Duration // the Retry-After header, 0 when absent or unreadable
}

// Error names the status and, when given, the Retry-After.
func (e *StatusError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("HTTP %s (Retry-After %s)", e.Status, e.RetryAfter)
	}
	return "HTTP " + e.Status
}

// Transient reports whether the same request may pass later: 429, 502, 503, 504.
func (e *StatusError) Transient() bool {
	switch e.Code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// errTooLarge: a response of the remote passed MaxResponseBytes.
var errTooLarge = errors.New("the response is larger than remote.max_response_bytes")

// credential is the header every request to the remote carries, re-read
// from its file at each card check (a rotated Secret).
type credential struct {
	mu            sync.Mutex
	header, value string
}

func (c *credential) get() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.header, c.value
}

func (c *credential) set(header, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.header, c.value = header, value
}

// traceKey carries the trace of a call in its context, for the headers.
type traceKey struct{}

// withTrace returns ctx whose HTTP requests carry tr (traceparent, tracestate).
func withTrace(ctx context.Context, tr a2a.Trace) context.Context {
	if !tr.Valid() {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, tr)
}

// roundTripper is the bridge's HTTP transport: every request gets the
// remote's credential and the call's trace context; the statuses
// StatusError covers become errors (so that every transport, JSON-RPC or
// REST, 1.0 or 0.3, reports them alike), and every response body is bounded.
type roundTripper struct {
	base     http.RoundTripper
	cred     *credential
	maxBytes int64
	now      func() time.Time
}

// RoundTrip sends a copy of req with the headers added.
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if h, v := t.cred.get(); h != "" {
		req.Header.Set(h, v)
	}
	if tr, ok := req.Context().Value(traceKey{}).(a2a.Trace); ok {
		req.Header.Set(a2a.HeaderTraceParent, tr.Parent)
		if tr.State != "" {
			req.Header.Set(a2a.HeaderTraceState, tr.State)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired,
		http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		e := &StatusError{Code: resp.StatusCode, Status: resp.Status, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), t.now())}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection be reused
		_ = resp.Body.Close()
		return nil, e
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.maxBytes}
	return resp, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// boundedBody fails a read past its bound with errTooLarge.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells a body that ends exactly at the bound from a longer one.
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
