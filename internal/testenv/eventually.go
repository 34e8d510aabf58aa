// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"testing"
	"time"
)

// WaitBound is how long Eventually waits by default: generous, because it
// bounds liveness only (no test asserts on speed) and CI machines are loaded.
const WaitBound = 15 * time.Second

// Re-check intervals of Eventually: the first re-check comes after
// firstPoll, each wait doubles up to maxPoll, so a condition that holds
// soon is seen soon and a long wait costs few checks. Variables so that
// the package's own tests can stretch them.
var (
	firstPoll = time.Millisecond
	maxPoll   = 10 * time.Millisecond
)

// WaitOption adjusts one Eventually call.
type WaitOption func(*waitConfig)

type waitConfig struct {
	bound   time.Duration
	wake    <-chan struct{}
	explain func() string
}

// Within makes Eventually wait up to d instead of WaitBound.
func Within(d time.Duration) WaitOption { return func(c *waitConfig) { c.bound = d } }

// WakeOn makes Eventually also re-check at once on every receive from ch
// (a change signal, such as directory.Directory.Changes), besides polling.
func WakeOn(ch <-chan struct{}) WaitOption { return func(c *waitConfig) { c.wake = ch } }

// Explain adds what explain returns, computed only on failure, to the
// failure message: the state that held instead.
func Explain(explain func() string) WaitOption { return func(c *waitConfig) { c.explain = explain } }

// Eventually waits until cond holds, re-checking it at short intervals. When
// it still does not hold after WaitBound (or the Within bound), it fails tb
// with a message naming what it waited for and for how long. cond runs on
// the calling goroutine, so it may itself fail tb. Inside a testing/synctest
// bubble its waits advance the bubble's clock.
func Eventually(tb testing.TB, what string, cond func() bool, opts ...WaitOption) {
	tb.Helper()
	c := waitConfig{bound: WaitBound}
	for _, o := range opts {
		o(&c)
	}
	start := time.Now()
	deadline := time.NewTimer(c.bound)
	defer deadline.Stop()
	poll := firstPoll
	for !cond() {
		tick := time.NewTimer(poll)
		select {
		case <-tick.C:
		case <-c.wake:
		case <-deadline.C:
			tick.Stop()
			if cond() { // it may have come true while the timer ran out
				return
			}
			msg := "timed out after " + time.Since(start).Round(time.Millisecond).String() + " waiting for " + what
			if c.explain != nil {
				msg += "\n" + c.explain()
			}
			tb.Fatal(msg)
			return
		}
		tick.Stop()
		poll = min(2*poll, maxPoll)
	}
}
