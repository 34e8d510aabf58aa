// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"sync"
	"testing"
	"time"
)

// pollTick waits for tick to close, failing the test if it does not within
// a minute (a tick that never comes: a waiter whose event was lost would
// wait for its context).
func pollTick(t *testing.T, tick <-chan struct{}) {
	t.Helper()
	select {
	case <-tick:
	case <-time.After(time.Minute):
		t.Fatal("no tick")
	}
}

// The waits of a caller share the poll's tick: every wait that asked is
// woken by it, with no timer of its own, and once it has come nothing is
// due until a wait asks again, when the timer, reset, ticks again.
func TestPollClockTicksOnceForEveryWaitThatAsked(t *testing.T) {
	p := &pollClock{interval: time.Hour}
	first := p.next()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if p.next() != first {
				t.Error("a second wait got a tick of its own")
			}
		})
	}
	wg.Wait()
	if !p.timer.Stop() {
		t.Fatal("the tick came early")
	}
	p.fire() // as the timer would, an hour on
	pollTick(t, first)
	p.mu.Lock()
	due := p.tick != nil
	p.mu.Unlock()
	if due {
		t.Fatal("a tick is due after the one every wait asked for came, though none asked again")
	}
	p.interval = time.Millisecond
	again := p.next()
	if again == first {
		t.Fatal("the next tick is the one that came")
	}
	pollTick(t, again)
}

// Asking for the tick that is due allocates nothing: a call's wait costs
// no timer.
func TestPollClockNextWhileDueAllocatesNothing(t *testing.T) {
	p := &pollClock{interval: time.Hour}
	p.next()
	defer p.timer.Stop()
	if n := testing.AllocsPerRun(100, func() { p.next() }); n != 0 {
		t.Fatalf("next allocates %v objects while a tick is due", n)
	}
}
