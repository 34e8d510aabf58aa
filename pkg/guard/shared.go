// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Shared keeps the limits of every process of a caller in one place, so
// that replicas together stay under one limit (pkg/guard/redislimits keeps
// them in Redis). Each method bounds its own wait; one that returns an
// error leaves the call to the per-process limits (see Config.Shared). It
// must be safe for concurrent use.
type Shared interface {
	// Enter takes one of max in-flight slots of caller across processes
	// (max > 0) and a pass through target's shared circuit (failures > 0:
	// it opens after failures consecutive failures and lets one probe
	// through after cooldown), in one exchange at most (none when this
	// process has a slot reserved and a fresh copy of the circuit). The
	// Pass says what was refused and holds what was taken, to be given back
	// if the call is refused.
	Enter(caller, target string, max, failures int, cooldown time.Duration) (Pass, error)
	// TakeToken takes a token of the rate limit of calls from caller to
	// target (rate per second, bucket of burst); ok false refuses, wait
	// saying when one is there.
	TakeToken(caller, target string, rate float64, burst int) (wait time.Duration, ok bool, err error)
	// Ping checks that the shared limits answer (asked while they do not).
	Ping() error
	// Watch gives the shared limits the function to call when their own
	// background work finds them unreachable, so that the calls leave them
	// alone until a ping answers (a process admitting from what it reserved
	// ahead may not ask them for a while). Called once, by New.
	Watch(failed func(error))
	// Close gives back the slots this process holds for no call and stops
	// renewing the others; they free themselves within their lease. Idempotent.
	Close() error
}

// ErrNotShared is wrapped by a Shared's error about a call it cannot keep
// (a name it has no key for): the call is left to the per-process limits,
// and the shared limits stay in use for the others.
var ErrNotShared = errors.New("guard: the call cannot be shared")

// Pass is what Shared.Enter took and refused.
type Pass struct {
	// Busy: all the slots are taken.
	Busy bool
	// Circuit is "" when the circuit let the call through, else its state,
	// "open" or "half-open" (a probe runs), and Wait the time before a retry.
	Circuit string
	Wait    time.Duration
	// Claim holds what was taken (nil: nothing): the guard finishes it once.
	Claim Claim
}

// Claim is the slot and the circuit pass a Pass took. Finish gives the
// slot back, without waiting, yet so that this process's next Enter finds
// it free (a slot not given back frees itself once its holder stops
// renewing it), and tells the circuit the call's outcome, without waiting
// but for the one probe of a half-open circuit. It is called once.
type Claim interface {
	Finish(Outcome)
}

// Outcome is what a finished call tells a circuit.
type Outcome int

// Outcomes of a call.
const (
	// OutcomeSuccess: the target answered (a result, or an error that is the caller's fault).
	OutcomeSuccess Outcome = iota
	// OutcomeFailure: the target failed or did not answer in time (IsFailure).
	OutcomeFailure
	// OutcomeNone: no outcome (abandoned, canceled): counted neither way.
	OutcomeNone
)

// DefaultSharedRetry is how often the guard pings its shared limits while
// they do not answer (the per-process limits hold alone meanwhile).
const DefaultSharedRetry = time.Second

// shared is a Guard's use of its Shared limits. After a failure the calls
// leave them alone (the per-process limits hold meanwhile) while one
// goroutine pings them every retry until they answer; both are logged once.
type shared struct {
	s     Shared
	retry time.Duration
	log   *zap.Logger

	down      atomic.Bool
	stop      chan struct{} // closed by Close: ends the pings
	closeOnce sync.Once
	pinging   sync.WaitGroup
}

// use reports whether the calls ask the shared limits now.
func (s *shared) use() bool { return s != nil && !s.down.Load() }

// failed records that the shared limits did not answer and, the first
// time, starts pinging them. ErrNotShared is no failure of theirs.
func (s *shared) failed(err error) {
	if errors.Is(err, ErrNotShared) || s.down.Swap(true) {
		return
	}
	s.log.Warn("shared limits unreachable: each process keeps only its own limits until they answer (limits.shared)", zap.Error(err))
	s.pinging.Add(1)
	go s.ping()
}

// ping asks the shared limits every retry until they answer or Close.
func (s *shared) ping() {
	defer s.pinging.Done()
	t := time.NewTicker(s.retry)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if s.s.Ping() == nil {
			s.down.Store(false)
			s.log.Info("shared limits answer again: the limits hold across processes")
			return
		}
	}
}

// admitShared takes the shared slot and circuit pass (in one exchange),
// then the token, of a call the per-process limits admitted, and sets them on t; a refusal
// gives back what was taken. Shared limits that fail admit the call (the
// per-process limits have) and are left alone until a ping answers; an
// ErrNotShared leaves only this call to the per-process limits.
func (g *Guard) admitShared(t *Ticket, caller, target string) *a2a.Error {
	s := g.shared
	if !s.use() {
		return nil
	}
	failures := 0
	var cooldown time.Duration
	if g.breakers != nil {
		failures, cooldown = int(g.breakers.failures), g.breakers.cooldown
	}
	if g.inFlight.max > 0 || failures > 0 {
		pass, err := s.s.Enter(caller, target, g.inFlight.max, failures, cooldown)
		if err != nil {
			s.failed(err)
			return nil // the per-process limits admitted it
		}
		t.shared = pass.Claim
		switch {
		case pass.Busy:
			t.giveBackShared()
			return a2a.NewError(a2a.CodeBusy, "%s already has %d calls in flight across its processes, the limit (limits.max_in_flight, limits.shared); retry when one of them finishes",
				caller, g.inFlight.max)
		case pass.Circuit == "half-open":
			t.giveBackShared()
			return a2a.NewError(a2a.CodeCircuitOpen,
				"the circuit to %s is half-open: a probe call of one of the caller's processes is testing whether it recovered; retry once it has answered (limits.shared)", target)
		case pass.Circuit != "":
			t.giveBackShared()
			return a2a.NewError(a2a.CodeCircuitOpen,
				"the circuit to %s is open after %d consecutive failures or timeouts seen by the caller's processes (limits.breaker_failures, limits.shared); retry in %s, when one probe call is let through",
				target, failures, roundUp(max(pass.Wait, time.Millisecond)))
		}
	}
	if g.rates != nil {
		wait, ok, err := s.s.TakeToken(caller, target, float64(g.rates.limit), g.rates.burst)
		if err != nil {
			t.giveBackShared()
			s.failed(err)
			return nil // the per-process limits admitted it
		}
		if !ok {
			t.giveBackShared()
			return a2a.NewError(a2a.CodeRateLimited, "calls from %s to %s are limited to %g per second across the caller's processes (burst %d; limits.rate, limits.burst, limits.shared); retry in %s",
				caller, target, float64(g.rates.limit), g.rates.burst, roundUp(max(wait, time.Millisecond)))
		}
	}
	return nil
}

// giveBackShared frees the shared slot and circuit pass of a call that is
// refused after all, counting it neither way.
func (t *Ticket) giveBackShared() {
	if t.shared != nil {
		t.shared.Finish(OutcomeNone)
		t.shared = nil
	}
}

// Close stops the shared limits' renewals and pings (Config.Shared): the
// slots this process holds free themselves within their lease. Idempotent
// and bounded; a Guard without shared limits has nothing to close.
func (g *Guard) Close() error {
	if g == nil || g.shared == nil {
		return nil
	}
	s := g.shared
	err := s.s.Close() // first: their background work reports no failure after it
	s.closeOnce.Do(func() { close(s.stop) })
	s.pinging.Wait() // a ping is bounded by the shared limits' own timeout
	return err
}

// SharedUp reports whether the guard's shared limits answered last time
// they were asked (false without shared limits).
func (g *Guard) SharedUp() bool {
	return g != nil && g.shared != nil && !g.shared.down.Load()
}
