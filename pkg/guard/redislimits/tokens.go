// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"fmt"
	"math"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// DefaultTokenReserve is how long tokens of the shared rate taken ahead
// stay usable: unused by then, they are lost (the bucket has counted
// them). So a process's calls over any span of time stay under the burst
// plus the rate times the span plus TokenReserve.
const DefaultTokenReserve = 100 * time.Millisecond

// tokens is the tokens of one (caller, target) rate this process took ahead.
type tokens struct {
	n     int       // left
	until time.Time // usable until then
	ask   int       // how many the next take asks for
}

// TakeToken takes a token of the GCRA of calls from caller to target: one
// this process took ahead if it has one, else from Redis, with more ahead
// when the last ones were used up in time (twice as many each time, at
// most a quarter of the burst and the tokens of Options.TokenReserve at the
// rate).
func (l *Limits) TakeToken(caller, target string, rate float64, burst int) (time.Duration, bool, error) {
	pair := [2]string{caller, target}
	now := time.Now()
	l.mu.Lock()
	t := l.tokens[pair]
	if t != nil && t.n > 0 && now.Before(t.until) {
		t.n--
		l.mu.Unlock()
		return 0, true, nil
	}
	if t == nil || now.After(t.until.Add(l.reserve)) { // not used lately: one at a time again
		t = &tokens{ask: 1}
	} else if t.n == 0 { // used up in time: more ahead
		t.ask *= 2
	}
	t.ask = max(1, min(t.ask, burst/4, int(math.Ceil(rate*l.reserve.Seconds()))))
	ask := t.ask
	if l.tokens == nil {
		l.tokens = map[[2]string]*tokens{}
	}
	l.tokens[pair] = t
	l.mu.Unlock()

	k, err := memory.RateKey(caller, target)
	if err != nil {
		return 0, false, fmt.Errorf("redislimits: take a token: %w: %w", guard.ErrNotShared, err)
	}
	ctx, cancel := l.bounded()
	defer cancel()
	res, err := l.rate.AllowAtMost(ctx, l.prefix+k, gcra(rate, burst), ask)
	if err != nil {
		return 0, false, fmt.Errorf("redislimits: take a token of %s to %s: %w", caller, target, err)
	}
	if res.Allowed == 0 {
		return res.RetryAfter, false, nil
	}
	l.mu.Lock()
	t.n, t.until = res.Allowed-1, time.Now().Add(l.reserve)
	l.mu.Unlock()
	return 0, true, nil
}

// pruneTokens forgets the tokens taken ahead that are no longer usable.
func (l *Limits) pruneTokens(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for pair, t := range l.tokens {
		if now.After(t.until.Add(l.reserve)) {
			delete(l.tokens, pair)
		}
	}
}
