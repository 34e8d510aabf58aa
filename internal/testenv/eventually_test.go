// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fakeTB records the failure Eventually reports instead of failing the test.
type fakeTB struct {
	testing.TB
	failure string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Fatal(args ...any) { f.failure = fmt.Sprint(args...) }

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	f := &fakeTB{}
	calls := 0
	Eventually(f, "the third check", func() bool { calls++; return calls == 3 })
	if f.failure != "" || calls != 3 {
		t.Fatalf("failure %q after %d checks, want none after 3", f.failure, calls)
	}
}

func TestEventuallyFailureNamesWhatAndHowLong(t *testing.T) {
	f := &fakeTB{}
	const bound = 30 * time.Millisecond
	Eventually(f, "the impossible", func() bool { return false }, Within(bound), Explain(func() string { return "it is still impossible" }))
	rest, ok := strings.CutPrefix(f.failure, "timed out after ")
	waited, rest, _ := strings.Cut(rest, " ")
	d, err := time.ParseDuration(waited)
	if !ok || err != nil || d < bound || rest != "waiting for the impossible\nit is still impossible" {
		t.Fatalf("failure %q, want it to name what, the explanation and a wait of at least %v", f.failure, bound)
	}
}

func TestEventuallyRechecksOnWake(t *testing.T) {
	defer func(first, most time.Duration) { firstPoll, maxPoll = first, most }(firstPoll, maxPoll)
	firstPoll, maxPoll = time.Hour, time.Hour // only the wake-up can bring the re-check
	var ready atomic.Bool
	wake := make(chan struct{})
	go func() {
		ready.Store(true)
		wake <- struct{}{}
	}()
	f := &fakeTB{}
	start := time.Now()
	Eventually(f, "the change", ready.Load, WakeOn(wake))
	if f.failure != "" || time.Since(start) >= WaitBound {
		t.Fatalf("failure %q after %v: the wake-up did not bring a re-check", f.failure, time.Since(start))
	}
}

// In a synctest bubble the bound passes on the bubble's clock: a condition
// that never holds fails at once, having waited exactly the bound.
func TestEventuallyInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeTB{}
		start := time.Now()
		Eventually(f, "the impossible", func() bool { return false })
		if f.failure == "" || time.Since(start) != WaitBound {
			t.Fatalf("failure %q after %v, want one after exactly %v", f.failure, time.Since(start), WaitBound)
		}
	})
}
