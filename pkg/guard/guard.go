// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package guard decides whether one agent may call another and keeps calls
// within bounds: a policy (which callers may call which targets), a limit
// on the calls in flight per caller, a token-bucket rate limit per (caller,
// target) and a circuit breaker per target. A refusal is a typed *a2a.Error:
// FORBIDDEN, BUSY, RATE_LIMITED or CIRCUIT_OPEN, the last three retryable and
// saying when to retry.
//
// Admit runs the checks in that order — policy, in-flight, rate, breaker —
// and a refused call consumes nothing. The caller side (pkg/caller) admits
// every call before it is published and reports its outcome with
// Ticket.Done; the agent side (pkg/agent) only asks Authorize, the policy.
//
// Every count of a Guard is per process: replicas of a caller each allow
// MaxInFlight calls and Rate calls per second, and each keeps its own
// circuits — unless the Guard has shared limits (Config.Shared, kept in
// Redis by pkg/guard/redislimits): then a call must also pass the limits of
// all the caller's processes together, and one process's failures open the
// circuit for all; while the shared limits are unreachable the per-process
// ones hold alone. A Guard is safe for concurrent use; its memory is
// bounded by the calls in flight plus the (caller, target) pairs used
// recently.
package guard

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/time/rate"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Config configures a Guard.
type Config struct {
	// Policy says who may call whom; the zero Policy allows every call.
	Policy Policy
	// Limits bounds the calls; the zero Limits bounds nothing (see DefaultLimits).
	Limits Limits
	// Logger receives the circuits' state changes; nil means no logging.
	Logger *zap.Logger
	// Now is the clock of the rate limits and of pruning; nil means
	// time.Now. (The circuit breaker's cool-down runs on time.Now.)
	Now func() time.Time
	// Shared, when set, keeps the limits across every process of a caller
	// (pkg/guard/redislimits): a call must pass both the per-process limits
	// and the shared ones. While Shared fails, the per-process limits hold
	// alone, logged once, and it is pinged every SharedRetry until it answers.
	Shared Shared
	// SharedRetry is how often an unreachable Shared is pinged; 0 means
	// DefaultSharedRetry.
	SharedRetry time.Duration
}

// pruneEvery is how often idle rate buckets and circuits are looked for.
const pruneEvery = time.Minute

// Guard admits calls. The zero value is not usable; a nil *Guard admits
// every call.
type Guard struct {
	policy *policy
	now    func() time.Time

	mu        sync.Mutex
	keys      nameKeys // the keys of the names seen (limits.go)
	inFlight  inFlight
	rates     *rates    // nil: no rate limit
	breakers  *breakers // nil: no circuit breaker
	nextPrune time.Time

	shared *shared // nil: the limits are this process's only (shared.go)

	refused refusals // Admit's refusals by code (stats.go)
}

// New validates cfg and returns a Guard. Every bad value is reported
// (errors.Join of *ConfigError wrapping ErrInvalidConfig).
func New(cfg Config) (*Guard, error) {
	p, err := newPolicy(cfg.Policy)
	errs := cfg.Limits.validate()
	if err != nil {
		errs = append([]error{err}, errs...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := cfg.Limits
	g := &Guard{policy: p, now: cfg.Now, keys: nameKeys{}, inFlight: inFlight{max: l.MaxInFlight, byCaller: map[string]int{}}}
	if l.Rate > 0 {
		g.rates = &rates{limit: rate.Limit(l.Rate), burst: l.Burst, byPair: map[pair]*rate.Limiter{}}
	}
	if l.BreakerFailures > 0 {
		g.breakers = newBreakers(l.BreakerFailures, l.BreakerCooldown, cfg.Logger.Named("guard"))
	}
	if cfg.Shared != nil {
		if cfg.SharedRetry <= 0 {
			cfg.SharedRetry = DefaultSharedRetry
		}
		g.shared = &shared{s: cfg.Shared, retry: cfg.SharedRetry, log: cfg.Logger.Named("guard"), stop: make(chan struct{})}
		cfg.Shared.Watch(g.shared.failed)
	}
	return g, nil
}

// Authorize returns the policy's FORBIDDEN refusal (an *a2a.Error) of a
// call from caller to target, or nil. It counts nothing: agents ask it
// about every task they receive.
func (g *Guard) Authorize(caller, target string) error {
	if g == nil {
		return nil
	}
	if err := g.policy.check(caller, target); err != nil {
		return err
	}
	return nil
}

// Admit checks a call from caller to target — policy, calls in flight,
// rate, circuit, in that order — and returns its ticket, or the refusal as
// an *a2a.Error (FORBIDDEN, BUSY, RATE_LIMITED, CIRCUIT_OPEN). A refused
// call takes no slot and no token. The ticket must be finished with Done
// (or Abandon) once. A nil Guard admits every call with a nil ticket.
//
// With shared limits (Config.Shared) a call the per-process limits admit
// is checked again against the limits of all the caller's processes: its
// slot, its circuit, then its token (a shared token cannot be given back,
// so it is taken last).
func (g *Guard) Admit(caller, target string) (_ *Ticket, err error) {
	if g == nil {
		return nil, nil
	}
	defer func() { g.refused.count(err) }()
	if err := g.policy.check(caller, target); err != nil {
		return nil, err
	}
	t, refusal := g.admitLocal(caller, target)
	if refusal != nil {
		return nil, refusal
	}
	if g.shared != nil {
		if refusal := g.admitShared(t, caller, target); refusal != nil {
			t.undoLocal()
			return nil, refusal
		}
	}
	return t, nil
}

// admitLocal runs the per-process checks: calls in flight, rate, circuit.
func (g *Guard) admitLocal(caller, target string) (*Ticket, *a2a.Error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.pruneLocked(now)
	ck, tk := g.keys.of(caller), g.keys.of(target)
	if err := g.inFlight.acquire(caller, ck); err != nil {
		return nil, err
	}
	t := &Ticket{g: g, callerKey: ck}
	if g.rates != nil {
		var refusal *a2a.Error
		if t.res, refusal = g.rates.reserve(caller, target, pair{ck, tk}, now); refusal != nil {
			g.inFlight.release(ck)
			return nil, refusal
		}
	}
	if g.breakers != nil {
		br, report, refusal := g.breakers.allow(target, tk, now)
		if refusal != nil {
			if t.res != nil {
				t.res.CancelAt(now) // the token goes back: nothing was sent
			}
			g.inFlight.release(ck)
			return nil, refusal
		}
		t.br, t.report = br, report
	}
	return t, nil
}

// undoLocal gives back what admitLocal took for a call refused afterwards:
// the slot, the token, and the circuit's pass counted neither way.
func (t *Ticket) undoLocal() {
	if t.report != nil {
		t.report(errAbandoned)
	}
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if t.res != nil {
		t.res.CancelAt(now)
	}
	g.inFlight.release(t.callerKey)
	if t.br != nil {
		g.breakers.finish(t.br, now)
	}
}

// CircuitState is the state of target's circuit: "closed", "open" or
// "half-open" ("closed" without a breaker).
func (g *Guard) CircuitState(target string) string {
	if g == nil || g.breakers == nil {
		return "closed"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.breakers.state(target)
}

// InFlight is how many admitted calls of caller are unfinished.
func (g *Guard) InFlight(caller string) int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight.byCaller[nameKey(caller)]
}

func (g *Guard) pruneLocked(now time.Time) {
	if now.Before(g.nextPrune) {
		return
	}
	g.nextPrune = now.Add(pruneEvery)
	if g.rates != nil {
		g.rates.prune(now)
	}
	if g.breakers != nil {
		g.breakers.prune(now)
	}
}

// Ticket is an admitted call. Finish it once with Done or Abandon; later
// calls do nothing. A nil Ticket may be finished too.
type Ticket struct {
	g         *Guard
	callerKey string            // the caller's name's key (nameKey)
	br        *breaker          // nil without a breaker
	report    func(error)       // the breaker's outcome callback
	res       *rate.Reservation // the token taken, nil without a rate limit

	shared Claim // the shared slot and circuit pass; nil without them
	once   sync.Once
}

// Done finishes the call with its outcome: "" for success, else the error
// code it ended with. It frees the caller's in-flight slot and tells the
// target's circuit: TIMEOUT, EXECUTION_FAILED, UNAVAILABLE and INTERNAL
// count as failures (see IsFailure), CANCELED as neither, any other code as
// an answer of the target.
func (t *Ticket) Done(code a2a.ErrorCode) { t.finish(outcome(code)) }

// Abandon finishes a call whose outcome is unknown or that was never sent:
// it frees the slot and counts neither way on the circuit.
func (t *Ticket) Abandon() { t.finish(errAbandoned) }

func (t *Ticket) finish(result error) {
	if t == nil {
		return
	}
	t.once.Do(func() {
		if t.report != nil {
			t.report(result) // before the breaker may be pruned: it has a call in flight until finish
		}
		g := t.g
		g.mu.Lock()
		g.inFlight.release(t.callerKey)
		if t.br != nil {
			g.breakers.finish(t.br, g.now())
		}
		g.mu.Unlock()
		if t.shared != nil { // outside the lock: a probe's outcome is written at once
			t.shared.Finish(sharedOutcome(result))
		}
	})
}

// sharedOutcome is the Outcome of what a gobreaker is told (outcome).
func sharedOutcome(result error) Outcome {
	switch {
	case result == nil:
		return OutcomeSuccess
	case errors.Is(result, errFailed):
		return OutcomeFailure
	}
	return OutcomeNone
}
