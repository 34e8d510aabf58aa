// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus_test

import (
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
)

// A pool with nothing to do holds one worker; items that block their
// workers start more, up to the bound and never past it, and every item is
// handled; the pool ends when its loops do.
func TestWorkersStartAsTheWorkNeedsThem(t *testing.T) {
	const bound = 6
	items := make(chan int)
	release := make(chan struct{})
	var (
		mu            sync.Mutex
		running, peak int
		handled       sync.Map
	)
	busy := func() int { mu.Lock(); defer mu.Unlock(); return running }
	w := bus.StartWorkers(bound, func(w *bus.Workers) {
		for i := range items {
			w.Took()
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			<-release
			handled.Store(i, true)
			mu.Lock()
			running--
			mu.Unlock()
			w.Idle()
		}
	})
	time.Sleep(20 * time.Millisecond)
	if n := w.Started(); n != 1 {
		t.Fatalf("an idle pool started %d workers, want 1", n)
	}
	// Two items at a time: each takes a worker, and one more waits.
	for i := range 2 {
		items <- i
	}
	waitFor(t, "three workers", func() bool { return w.Started() == 3 })
	// More items than the bound: all of max run at once, none beyond.
	go func() {
		for i := 2; i < 3*bound; i++ {
			items <- i
		}
		close(items)
	}()
	waitFor(t, "all workers busy", func() bool { return busy() == bound })
	time.Sleep(20 * time.Millisecond)
	if n := w.Started(); n != bound {
		t.Fatalf("%d workers started, want the bound %d", n, bound)
	}
	close(release)
	w.Wait()
	if peak != bound {
		t.Fatalf("%d items ran at once at most, want %d", peak, bound)
	}
	for i := range 3 * bound {
		if _, ok := handled.Load(i); !ok {
			t.Fatalf("item %d was not handled", i)
		}
	}
}

// A worker that is idle again is used before another starts: one item at
// a time keeps the pool at two workers (the busy one and the one waiting).
func TestWorkersReuseIdleOnes(t *testing.T) {
	items := make(chan int)
	done := make(chan struct{})
	w := bus.StartWorkers(8, func(w *bus.Workers) {
		for range items {
			w.Took()
			w.Idle()
			done <- struct{}{}
		}
	})
	for i := range 50 {
		items <- i
		<-done
	}
	close(items)
	w.Wait()
	if n := w.Started(); n > 2 {
		t.Fatalf("one item at a time started %d workers, want at most 2", n)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
