// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// fakeShared is a Shared in memory that refuses or fails on demand and
// records what it was told.
type fakeShared struct {
	mu                       sync.Mutex
	slots, maxSlots          int
	circuitOpen, rateRefused bool
	fail, notShared, pingErr error
	outcomes                 []Outcome
	failed                   func(error) // Watch's
}

func (f *fakeShared) Enter(caller, target string, max, failures int, cooldown time.Duration) (Pass, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil || f.notShared != nil {
		return Pass{}, errors.Join(f.fail, f.notShared)
	}
	var p Pass
	c := &fakeClaim{f: f}
	if f.slots >= f.maxSlots {
		p.Busy = true
	} else {
		f.slots++
		c.slot = true
	}
	if f.circuitOpen {
		p.Circuit, p.Wait = "open", cooldown
	} else {
		c.pass = true
	}
	if c.slot || c.pass {
		p.Claim = c
	}
	return p, nil
}

// fakeClaim is what fakeShared.Enter took: a slot, a circuit pass.
type fakeClaim struct {
	f          *fakeShared
	slot, pass bool
}

func (c *fakeClaim) Finish(o Outcome) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if c.slot {
		c.f.slots--
	}
	if c.pass {
		c.f.outcomes = append(c.f.outcomes, o)
	}
}

func (f *fakeShared) TakeToken(caller, target string, rate float64, burst int) (time.Duration, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return time.Second, !f.rateRefused, nil
}

func (f *fakeShared) Ping() error  { f.mu.Lock(); defer f.mu.Unlock(); return f.pingErr }
func (f *fakeShared) Close() error { return nil }

func (f *fakeShared) Watch(failed func(error)) { f.mu.Lock(); f.failed = failed; f.mu.Unlock() }

func (f *fakeShared) set(fn func(*fakeShared)) { f.mu.Lock(); fn(f); f.mu.Unlock() }

func (f *fakeShared) state() (int, []Outcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slots, append([]Outcome(nil), f.outcomes...)
}

func sharedGuard(t *testing.T, f *fakeShared) *Guard {
	t.Helper()
	g, err := New(Config{Limits: Limits{MaxInFlight: 5, Rate: 100, Burst: 100, BreakerFailures: 3, BreakerCooldown: time.Minute},
		Shared: f, SharedRetry: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// TestSharedRefusalGivesEverythingBack: a call the shared limits refuse
// holds no per-process slot, and no shared slot or circuit pass either.
func TestSharedRefusalGivesEverythingBack(t *testing.T) {
	f := &fakeShared{maxSlots: 1}
	g := sharedGuard(t, f)
	tk := admit(t, g, "Cli", "T")
	_, err := g.Admit("Cli", "T")
	refused(t, err, a2a.CodeBusy, "across its processes", "limits.shared")
	if n := g.InFlight("Cli"); n != 1 {
		t.Fatalf("in flight after a shared BUSY: %d, want 1", n)
	}
	tk.Done("")

	f.set(func(f *fakeShared) { f.circuitOpen = true })
	_, err = g.Admit("Cli", "T")
	refused(t, err, a2a.CodeCircuitOpen, "seen by the caller's processes")
	f.set(func(f *fakeShared) { f.circuitOpen, f.rateRefused = false, true })
	_, err = g.Admit("Cli", "T")
	refused(t, err, a2a.CodeRateLimited, "across the caller's processes", "retry in 1s")
	if slots, _ := f.state(); slots != 0 || g.InFlight("Cli") != 0 {
		t.Fatalf("after refusals: %d shared slots, %d in flight; want none", slots, g.InFlight("Cli"))
	}
	_, outs := f.state()
	if fmt.Sprint(outs) != fmt.Sprint([]Outcome{OutcomeNone, OutcomeSuccess, OutcomeNone}) {
		t.Fatalf("the shared circuit was told %v, want nothing for the BUSY call, the success, nothing for the rate-refused call", outs)
	}
}

// TestSharedOutcomes: the shared circuit is told what the per-process one is.
func TestSharedOutcomes(t *testing.T) {
	f := &fakeShared{maxSlots: 10}
	g := sharedGuard(t, f)
	admit(t, g, "Cli", "T").Done("")
	admit(t, g, "Cli", "T").Done(a2a.CodeTimeout)
	admit(t, g, "Cli", "T").Done(a2a.CodeInvalidInput)
	admit(t, g, "Cli", "T").Done(a2a.CodeCanceled)
	admit(t, g, "Cli", "T").Abandon()
	_, outs := f.state()
	want := []Outcome{OutcomeSuccess, OutcomeFailure, OutcomeSuccess, OutcomeNone, OutcomeNone}
	if fmt.Sprint(outs) != fmt.Sprint(want) {
		t.Fatalf("outcomes %v, want %v", outs, want)
	}
}

// TestSharedDownAndBack: failing shared limits leave the calls to the
// per-process ones and are not asked until a ping answers; a name they
// cannot keep is no failure.
func TestSharedDownAndBack(t *testing.T) {
	f := &fakeShared{maxSlots: 0, notShared: fmt.Errorf("bad name: %w", ErrNotShared)}
	g := sharedGuard(t, f)
	admit(t, g, "Cli", "T").Done("")
	if !g.SharedUp() {
		t.Fatal("ErrNotShared took the shared limits down")
	}
	f.set(func(f *fakeShared) {
		f.notShared, f.fail, f.pingErr = nil, errors.New("connection refused"), errors.New("connection refused")
	})
	admit(t, g, "Cli", "T").Done("")
	if g.SharedUp() {
		t.Fatal("shared limits up after a failure")
	}
	f.set(func(f *fakeShared) { f.fail = nil }) // answers again, but the ping does not yet
	admit(t, g, "Cli", "T").Done("")            // not asked: maxSlots 0 would refuse it
	f.set(func(f *fakeShared) { f.pingErr = nil })
	testenv.Eventually(t, "the ping finds the shared limits back", g.SharedUp)
	_, err := g.Admit("Cli", "T")
	refused(t, err, a2a.CodeBusy, "across its processes")
}
