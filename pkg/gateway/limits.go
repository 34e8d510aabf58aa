// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// principalRates is a token bucket per principal (caller name). The
// principals are the gateway's callers, a fixed set, so buckets are never
// pruned.
type principalRates struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu     sync.Mutex
	byName map[string]*rate.Limiter
}

func newPrincipalRates(r float64, burst int, now func() time.Time) *principalRates {
	if r < 0 {
		return &principalRates{limit: rate.Inf, now: now}
	}
	return &principalRates{limit: rate.Limit(r), burst: burst, now: now, byName: map[string]*rate.Limiter{}}
}

// take takes a token for name, or says how long until one is there.
func (p *principalRates) take(name string) (wait time.Duration, ok bool) {
	if p.limit == rate.Inf {
		return 0, true
	}
	key := strings.ToLower(name)
	p.mu.Lock()
	lim := p.byName[key]
	if lim == nil {
		lim = rate.NewLimiter(p.limit, p.burst)
		p.byName[key] = lim
	}
	p.mu.Unlock()
	now := p.now()
	res := lim.ReserveN(now, 1)
	if !res.OK() {
		return time.Second, false
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, false
	}
	return 0, true
}

// retryAfter is the Retry-After value of a wait: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// streamSlots counts the event streams open on the gateway.
type streamSlots struct {
	max  int64
	open atomic.Int64
}

// take takes a slot, or reports false when max are open.
func (s *streamSlots) take() bool {
	if s.open.Add(1) > s.max {
		s.open.Add(-1)
		return false
	}
	return true
}

func (s *streamSlots) release() { s.open.Add(-1) }

// reply is what a request's handler learns that must change its HTTP
// answer: a refusal the protocol layer would answer 200 (JSON-RPC) or 500
// (REST) becomes 403, 429 or 503, with Retry-After.
type reply struct {
	mu         sync.Mutex
	status     int
	retryAfter time.Duration
}

// refuse sets the status (and wait) the answer gets; the first refusal wins.
func (r *reply) refuse(status int, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == 0 {
		r.status, r.retryAfter = status, wait
	}
}

func (r *reply) get() (int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.retryAfter
}

// replyWriter holds back the status line until the first byte of the
// body (or the end of the handler), so that a refusal found after the
// transport chose its status (an event stream writes 200 at once) still
// sets it. It also records the status for the metrics.
type replyWriter struct {
	http.ResponseWriter
	reply   *reply
	pending int // the status asked for, not yet written
	status  int // the status written
}

func (w *replyWriter) WriteHeader(code int) {
	if w.status == 0 && w.pending == 0 {
		w.pending = code
	}
}

// commit writes the status line: the refusal's status, if any, else the
// one asked for (200 when none was).
func (w *replyWriter) commit() {
	if w.status != 0 {
		return
	}
	code := w.pending
	if code == 0 {
		code = http.StatusOK
	}
	if s, wait := w.reply.get(); s != 0 {
		code = s
		if wait > 0 {
			w.Header().Set("Retry-After", retryAfter(wait))
		}
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *replyWriter) Write(b []byte) (int, error) {
	w.commit()
	return w.ResponseWriter.Write(b)
}

// Flush commits the status, then flushes (the event streams).
func (w *replyWriter) Flush() {
	w.commit()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *replyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
