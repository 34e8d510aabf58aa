// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"math"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Limits bounds the calls admitted by one Guard (one process). Zero values
// mean unlimited / no breaker.
type Limits struct {
	// MaxInFlight is how many admitted calls of one caller may be unfinished
	// at once; more are refused with BUSY. 0 means unlimited.
	MaxInFlight int
	// Rate is how many calls per second one caller may make to one target
	// (a token bucket of Burst tokens); more are refused with RATE_LIMITED.
	// 0 means unlimited.
	Rate float64
	// Burst is the size of the token bucket: calls that may go at once after
	// a quiet spell. At least 1 when Rate > 0.
	Burst int
	// BreakerFailures is how many consecutive failures or timeouts of a
	// target open its circuit; 0 means no circuit breaker.
	BreakerFailures int
	// BreakerCooldown is how long an open circuit refuses calls before it
	// lets one probe through.
	BreakerCooldown time.Duration
}

// Defaults of Limits (those of the a2abus configuration).
const (
	DefaultMaxInFlight     = 10
	DefaultBurst           = 10
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
)

// Bounds checked by New.
const (
	MaxMaxInFlight     = 1_000_000
	MaxRate            = 1_000_000.0
	MaxBurst           = 1_000_000
	MaxBreakerFailures = 1_000
)

// DefaultLimits returns the default limits: 10 calls in flight per caller,
// no rate limit (burst 10 when one is set), a breaker that opens after 5
// consecutive failures and probes after 30s.
func DefaultLimits() Limits {
	return Limits{MaxInFlight: DefaultMaxInFlight, Burst: DefaultBurst,
		BreakerFailures: DefaultBreakerFailures, BreakerCooldown: DefaultBreakerCooldown}
}

func (l Limits) validate() []error {
	var errs []error
	if l.MaxInFlight < 0 || l.MaxInFlight > MaxMaxInFlight {
		errs = append(errs, invalid("limits.max_in_flight", "must be within 0..%d (0: unlimited), got %d", MaxMaxInFlight, l.MaxInFlight))
	}
	if math.IsNaN(l.Rate) || l.Rate < 0 || l.Rate > MaxRate {
		errs = append(errs, invalid("limits.rate", "must be within 0..%g calls per second (0: unlimited), got %g", MaxRate, l.Rate))
	}
	if l.Burst < 0 || l.Burst > MaxBurst || (l.Rate > 0 && l.Burst == 0) {
		errs = append(errs, invalid("limits.burst", "must be within 1..%d, got %d", MaxBurst, l.Burst))
	}
	if l.BreakerFailures < 0 || l.BreakerFailures > MaxBreakerFailures {
		errs = append(errs, invalid("limits.breaker_failures", "must be within 0..%d (0: no breaker), got %d", MaxBreakerFailures, l.BreakerFailures))
	}
	if l.BreakerFailures > 0 && l.BreakerCooldown <= 0 {
		errs = append(errs, invalid("limits.breaker_cooldown", "must be a positive duration, got %s", l.BreakerCooldown))
	}
	return errs
}

// nameKey is the map key of an agent name: names compare case-insensitively.
func nameKey(name string) string { return strings.ToLower(name) }

// maxNameKeys bounds the names whose keys a Guard remembers; the key of a
// name beyond them is made again at each call.
const maxNameKeys = 1024

// nameKeys remembers the keys of the names a Guard has seen, so that a call
// does not lower its names again (an allocation each, for a name with a
// capital letter). The Guard's mutex guards it.
type nameKeys map[string]string

// of is name's key (nameKey).
func (k nameKeys) of(name string) string {
	if key, ok := k[name]; ok {
		return key
	}
	key := nameKey(name)
	if len(k) < maxNameKeys {
		k[name] = key
	}
	return key
}

// inFlight counts the unfinished admitted calls of each caller. The Guard's
// mutex guards it; a caller with none has no entry.
type inFlight struct {
	max      int
	byCaller map[string]int
}

// acquire takes a slot for caller, whose key is k, or refuses with BUSY.
func (f *inFlight) acquire(caller, k string) *a2a.Error {
	if f.max > 0 && f.byCaller[k] >= f.max {
		return a2a.NewError(a2a.CodeBusy, "%s already has %d calls in flight, the limit (limits.max_in_flight); retry when one of them finishes",
			caller, f.max)
	}
	f.byCaller[k]++
	return nil
}

// release frees a slot of the caller whose key is k.
func (f *inFlight) release(k string) {
	if f.byCaller[k] <= 1 {
		delete(f.byCaller, k)
		return
	}
	f.byCaller[k]--
}

// pair is a (caller, target) key.
type pair struct{ caller, target string }

// rates holds a token bucket per (caller, target). The Guard's mutex guards
// it. A bucket that is full again is the same as a new one, so it is pruned.
type rates struct {
	limit  rate.Limit
	burst  int
	byPair map[pair]*rate.Limiter
}

// reserve takes a token for a call from caller to target (k: their keys) at now, or
// refuses with RATE_LIMITED saying when a token will be there. The
// reservation can be cancelled when a later check refuses the call.
func (r *rates) reserve(caller, target string, k pair, now time.Time) (*rate.Reservation, *a2a.Error) {
	lim := r.byPair[k]
	if lim == nil {
		lim = rate.NewLimiter(r.limit, r.burst)
		r.byPair[k] = lim
	}
	res := lim.ReserveN(now, 1)
	if !res.OK() {
		return nil, a2a.NewError(a2a.CodeRateLimited, "calls from %s to %s are refused: the rate limit has no burst (limits.burst)", caller, target)
	}
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		return nil, a2a.NewError(a2a.CodeRateLimited, "calls from %s to %s are limited to %g per second (burst %d; limits.rate, limits.burst); retry in %s",
			caller, target, float64(r.limit), r.burst, roundUp(wait))
	}
	return res, nil
}

// prune drops the buckets that are full again.
func (r *rates) prune(now time.Time) {
	for k, lim := range r.byPair {
		if lim.TokensAt(now) >= float64(r.burst) {
			delete(r.byPair, k)
		}
	}
}

// roundUp rounds a wait up to a readable precision, never to zero.
func roundUp(d time.Duration) time.Duration {
	unit := time.Millisecond
	if d >= 10*time.Second {
		unit = time.Second
	}
	return (d + unit - 1).Truncate(unit)
}
