// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// idle reports whether p has no tick due and its timer stopped.
func idle(p *pollClock) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range p.due {
		if ch != nil {
			return false
		}
	}
	return !p.running
}

// The waits of a caller share the poll's ticks: the waits that asked
// between two ticks share one channel and no timer of their own; their poll
// comes pollSteps+1 ticks on (at least the interval after they asked), not
// before; and once it has come, with no wait asking again, the clock stops.
func TestPollClockPollsTheWaitsThatAskedTogetherAnIntervalOn(t *testing.T) {
	p := &pollClock{interval: time.Hour} // ticked by hand below
	first := p.next()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if p.next() != first {
				t.Error("a second wait got a poll of its own")
			}
		})
	}
	wg.Wait()
	p.tick()
	later := p.next() // asked a tick later: polled a tick later
	if later == first {
		t.Fatal("a wait that asked a tick later is polled with the first")
	}
	for range pollSteps {
		if closed(first) {
			t.Fatal("polled before the interval passed")
		}
		p.tick()
	}
	if !closed(first) {
		t.Fatal("not polled pollSteps+1 ticks after asking")
	}
	if closed(later) || idle(p) {
		t.Fatal("the later wait's poll came with the first's, or the clock stopped before it")
	}
	p.tick()
	if !closed(later) {
		t.Fatal("the later wait was not polled")
	}
	if !idle(p) {
		t.Fatal("the clock runs on though no wait asked for a poll")
	}
	p.timer.Stop()
}

// The timer ticks by itself, and stops once the waits' polls came.
func TestPollClockTicksByItself(t *testing.T) {
	p := &pollClock{interval: 4 * time.Millisecond}
	for range 2 { // the second time, the timer stopped is reset
		select {
		case <-p.next():
		case <-time.After(time.Minute):
			t.Fatal("no poll")
		}
		testenv.Eventually(t, "the clock stops after the poll", func() bool { return idle(p) })
	}
}

// Asking for a poll that another wait asked for allocates nothing: a call's
// wait costs no timer.
func TestPollClockNextAllocatesNothingWhenShared(t *testing.T) {
	p := &pollClock{interval: time.Hour}
	p.next()
	defer p.timer.Stop()
	if n := testing.AllocsPerRun(100, func() { p.next() }); n != 0 {
		t.Fatalf("next allocates %v objects while a poll is due", n)
	}
}
