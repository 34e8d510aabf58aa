// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// IsFailure reports whether an outcome with code counts against the
// target's circuit: TIMEOUT, EXPIRED_IN_QUEUE (no agent took the task),
// EXECUTION_FAILED, UNAVAILABLE and INTERNAL.
// The caller's own faults (INVALID_INPUT, FORBIDDEN, SKILL_NOT_SUPPORTED,
// CANCELED, ...) do not: the target answered them.
func IsFailure(code a2a.ErrorCode) bool {
	switch code {
	case a2a.CodeTimeout, a2a.CodeExpiredInQueue, a2a.CodeExecutionFailed, a2a.CodeUnavailable, a2a.CodeInternal:
		return true
	}
	return false
}

// Outcomes reported to a gobreaker: nil is a success.
var (
	errFailed    = errors.New("guard: the call failed")
	errAbandoned = errors.New("guard: the call has no outcome") // counted neither way
)

// outcome maps a call's error code to what its breaker is told.
func outcome(code a2a.ErrorCode) error {
	switch {
	case code == "":
		return nil
	case IsFailure(code):
		return errFailed
	case code == a2a.CodeCanceled:
		return errAbandoned // the caller gave up: it says nothing about the target
	}
	return nil // the target answered, with the caller's fault
}

// breakers holds a circuit breaker per target. The Guard's mutex guards the
// map and the breakers' inFlight and lastUsed; gobreaker guards its state.
type breakers struct {
	failures uint32
	cooldown time.Duration
	idle     time.Duration // an unused breaker is forgotten after this long
	log      *zap.Logger
	byTarget map[string]*breaker
}

// breaker is the circuit of one target.
type breaker struct {
	target   string // as first spelled
	cb       *gobreaker.TwoStepCircuitBreaker[struct{}]
	inFlight int
	lastUsed time.Time

	mu       sync.Mutex // guards openedAt, set from gobreaker's state hook
	openedAt time.Time
}

func newBreakers(failures int, cooldown time.Duration, log *zap.Logger) *breakers {
	return &breakers{failures: uint32(failures), cooldown: cooldown, idle: max(time.Hour, 2*cooldown), log: log,
		byTarget: map[string]*breaker{}}
}

func (b *breakers) get(target, k string) *breaker {
	br := b.byTarget[k]
	if br != nil {
		return br
	}
	br = &breaker{target: target}
	br.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        target,
		MaxRequests: 1, // one probe when half-open; its success closes the circuit
		Timeout:     b.cooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= b.failures },
		IsExcluded:  func(err error) bool { return errors.Is(err, errAbandoned) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				br.mu.Lock()
				br.openedAt = time.Now() // gobreaker's clock
				br.mu.Unlock()
			}
			b.log.Info("circuit breaker state changed", zap.String("target", target),
				zap.String("from", from.String()), zap.String("to", to.String()))
		},
	})
	b.byTarget[k] = br
	return br
}

// allow lets a call to target (k: its key) through its circuit, or refuses it with
// CIRCUIT_OPEN saying when to retry. report must be called once with the
// call's outcome.
func (b *breakers) allow(target, k string, now time.Time) (br *breaker, report func(error), refusal *a2a.Error) {
	br = b.get(target, k)
	report, err := br.cb.Allow()
	if err == nil {
		br.inFlight++
		br.lastUsed = now
		return br, report, nil
	}
	if errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, nil, a2a.NewError(a2a.CodeCircuitOpen,
			"the circuit to %s is half-open: a probe call is testing whether it recovered; retry once it has answered (within its timeout)", target)
	}
	br.mu.Lock()
	wait := time.Until(br.openedAt.Add(b.cooldown))
	br.mu.Unlock()
	return nil, nil, a2a.NewError(a2a.CodeCircuitOpen,
		"the circuit to %s is open after %d consecutive failures or timeouts (limits.breaker_failures); retry in %s, when one probe call is let through",
		target, b.failures, roundUp(max(wait, time.Millisecond)))
}

// finish marks one call through br as finished.
func (b *breakers) finish(br *breaker, now time.Time) {
	br.inFlight--
	br.lastUsed = now
}

// prune forgets the breakers with no call in flight that are like new
// (closed with no failure counted) or unused for a long time.
func (b *breakers) prune(now time.Time) {
	for k, br := range b.byTarget {
		if br.inFlight > 0 {
			continue
		}
		fresh := br.cb.State() == gobreaker.StateClosed && br.cb.Counts().ConsecutiveFailures == 0
		if fresh || now.Sub(br.lastUsed) > b.idle {
			delete(b.byTarget, k)
		}
	}
}

// state is the state of target's circuit ("closed" when it has none yet).
func (b *breakers) state(target string) string {
	if br := b.byTarget[nameKey(target)]; br != nil {
		return br.cb.State().String()
	}
	return gobreaker.StateClosed.String()
}
