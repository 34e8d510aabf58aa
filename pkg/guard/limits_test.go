// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// newClock is a settable test clock.
func newClock() *testenv.Clock { return testenv.NewClock() }

// refused asserts err is a retryable *a2a.Error with code whose message says each of parts.
func refused(t *testing.T, err error, code a2a.ErrorCode, parts ...string) {
	t.Helper()
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != code || e.Retryable != code.DefaultRetryable() {
		t.Fatalf("error = %v, want %s (retryable %v)", err, code, code.DefaultRetryable())
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not say %q", e.Message, p)
		}
	}
}

func admit(t *testing.T, g *Guard, caller, target string) *Ticket {
	t.Helper()
	tk, err := g.Admit(caller, target)
	if err != nil {
		t.Fatalf("Admit(%s, %s) = %v", caller, target, err)
	}
	return tk
}

func TestInFlightLimit(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{MaxInFlight: 2}})
	a := admit(t, g, "Cli", "X")
	b := admit(t, g, "cli", "Y") // the same caller, any case, any target
	_, err := g.Admit("CLI", "Z")
	refused(t, err, a2a.CodeBusy, "CLI already has 2 calls in flight", "retry when one of them finishes")
	admit(t, g, "Other", "X").Done("") // callers count apart
	a.Done("")
	a.Done("") // idempotent: frees one slot, not two
	a.Abandon()
	c := admit(t, g, "Cli", "Z")
	if _, err := g.Admit("Cli", "Z"); a2a.CodeOf(err) != a2a.CodeBusy {
		t.Fatalf("third call = %v, want BUSY (a Done twice freed two slots)", err)
	}
	b.Abandon()
	c.Done(a2a.CodeTimeout)
	if n := g.InFlight("Cli"); n != 0 {
		t.Fatalf("in flight = %d after every call finished", n)
	}
	if len(g.inFlight.byCaller) != 0 {
		t.Errorf("idle callers are kept: %v", g.inFlight.byCaller)
	}
}

func TestUnlimitedAndNilGuard(t *testing.T) {
	g := mustGuard(t, Config{})
	for range 1000 {
		admit(t, g, "Cli", "X")
	}
	var nilGuard *Guard
	tk, err := nilGuard.Admit("Cli", "X")
	if tk != nil || err != nil {
		t.Fatalf("nil guard Admit = %v, %v", tk, err)
	}
	tk.Done("") // a nil ticket may be finished
}

func TestRateLimitPerCallerAndTarget(t *testing.T) {
	clk := newClock()
	g := mustGuard(t, Config{Limits: Limits{Rate: 1, Burst: 2}, Now: clk.Now})
	admit(t, g, "Cli", "X").Done("")
	admit(t, g, "Cli", "x").Done("") // target names compare case-insensitively
	_, err := g.Admit("Cli", "X")
	refused(t, err, a2a.CodeRateLimited, "calls from Cli to X are limited to 1 per second (burst 2", "retry in 1s")
	admit(t, g, "Cli", "Y").Done("")   // another target has its own bucket
	admit(t, g, "Other", "X").Done("") // and another caller
	clk.Advance(500 * time.Millisecond)
	_, err = g.Admit("Cli", "X")
	refused(t, err, a2a.CodeRateLimited, "retry in 500ms")
	clk.Advance(500 * time.Millisecond)
	admit(t, g, "Cli", "X").Done("")
	if _, err := g.Admit("Cli", "X"); a2a.CodeOf(err) != a2a.CodeRateLimited {
		t.Fatalf("call after the refill = %v, want RATE_LIMITED (a refusal took no token, the refill was one)", err)
	}
}

func TestChecksRunInOrderAndRefusalsConsumeNothing(t *testing.T) {
	clk := newClock()
	g := mustGuard(t, Config{
		Policy: Policy{Rules: []Rule{{Caller: "Cli", Deny: []string{"Secret"}}}},
		Limits: Limits{MaxInFlight: 1, Rate: 1, Burst: 1, BreakerFailures: 1, BreakerCooldown: time.Hour},
		Now:    clk.Now,
	})
	// Policy first: a forbidden call is FORBIDDEN even when the caller is busy.
	busy := admit(t, g, "Cli", "X")
	_, err := g.Admit("Cli", "Secret")
	forbidden(t, err)
	// In flight before rate: BUSY takes no token from Y's bucket.
	_, err = g.Admit("Cli", "Y")
	refused(t, err, a2a.CodeBusy)
	busy.Done(a2a.CodeExecutionFailed) // X's circuit opens (1 failure)
	if s := g.CircuitState("X"); s != "open" {
		t.Fatalf("X's circuit is %s, want open", s)
	}
	admit(t, g, "Cli", "Y").Done("") // Y's token was still there
	// Rate before breaker: X's bucket is empty and its circuit open: RATE_LIMITED.
	_, err = g.Admit("Cli", "X")
	refused(t, err, a2a.CodeRateLimited)
	clk.Advance(time.Second)
	// Breaker last: CIRCUIT_OPEN gives the token and the slot back.
	_, err = g.Admit("Cli", "X")
	refused(t, err, a2a.CodeCircuitOpen)
	_, err = g.Admit("Cli", "X")
	refused(t, err, a2a.CodeCircuitOpen) // not RATE_LIMITED: the token came back
	if n := g.InFlight("Cli"); n != 0 {
		t.Fatalf("in flight = %d after refusals", n)
	}
	admit(t, g, "Cli", "Z").Done("")
}

func TestIdleStateIsPruned(t *testing.T) {
	clk := newClock()
	g := mustGuard(t, Config{Limits: Limits{Rate: 10, Burst: 5, BreakerFailures: 3, BreakerCooldown: time.Second}, Now: clk.Now})
	for i := range 100 {
		admit(t, g, "Cli", "T"+strings.Repeat("x", i)).Done(a2a.CodeTimeout)
	}
	held := admit(t, g, "Cli", "Held") // in flight: its circuit stays
	if len(g.rates.byPair) != 101 || len(g.breakers.byTarget) != 101 {
		t.Fatalf("%d buckets, %d circuits; want 101 of each", len(g.rates.byPair), len(g.breakers.byTarget))
	}
	clk.Advance(2 * pruneEvery) // every bucket is full again
	admit(t, g, "Cli", "New").Done("")
	if len(g.rates.byPair) > 2 {
		t.Errorf("%d rate buckets left after pruning, want at most 2", len(g.rates.byPair))
	}
	// The circuits with a failure are kept (for an hour), the fresh and the busy ones go or stay as they should.
	if _, ok := g.breakers.byTarget["t"]; !ok {
		t.Error("a circuit with a failure counted was pruned after two minutes")
	}
	if _, ok := g.breakers.byTarget["held"]; !ok {
		t.Error("the circuit of a call in flight was pruned")
	}
	if _, ok := g.breakers.byTarget["new"]; !ok {
		t.Error("the circuit just used was pruned before the next pass")
	}
	held.Done("")
	clk.Advance(2 * time.Hour)
	admit(t, g, "Cli", "Last").Done("")
	if n := len(g.breakers.byTarget); n > 1 {
		t.Errorf("%d circuits left after two idle hours, want at most 1", n)
	}
}

func TestConcurrentUse(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{MaxInFlight: 5, Rate: 1e6, Burst: 1000, BreakerFailures: 1000, BreakerCooldown: time.Second}})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 200 {
				tk, err := g.Admit("Cli", []string{"A", "B", "C"}[(i+j)%3])
				if err != nil {
					if a2a.CodeOf(err) != a2a.CodeBusy {
						t.Errorf("Admit = %v", err)
					}
					continue
				}
				if n := g.InFlight("Cli"); n > 5 {
					t.Errorf("in flight = %d > 5", n)
				}
				tk.Done("")
			}
		})
	}
	wg.Wait()
	if n := g.InFlight("Cli"); n != 0 {
		t.Fatalf("in flight = %d after all calls finished", n)
	}
}
