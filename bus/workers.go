// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import "sync"

// Workers runs up to max copies of a worker loop, started as the work needs
// them: one at first, and another each time the last idle one takes an item.
// An idle consumer so holds one goroutine, not its whole concurrency, and a
// busy one reaches max and keeps it. A loop calls Took when it has taken an
// item and Idle when it waits for the next; it returns at the end of the
// work. Safe for concurrent use.
type Workers struct {
	max  int
	loop func(*Workers)
	wg   sync.WaitGroup

	mu      sync.Mutex
	started int
	idle    int
}

// StartWorkers starts the first worker running loop, of at most max (at
// least 1).
func StartWorkers(max int, loop func(*Workers)) *Workers {
	w := &Workers{max: max, loop: loop}
	w.mu.Lock()
	w.startLocked()
	w.mu.Unlock()
	return w
}

// startLocked starts one more worker, idle until it takes an item.
func (w *Workers) startLocked() {
	w.started++
	w.idle++
	w.wg.Go(func() { w.loop(w) })
}

// Took records that the calling worker has taken an item: when no other
// worker is left idle and fewer than max run, one more starts to wait for
// the next item.
func (w *Workers) Took() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idle--
	if w.idle == 0 && w.started < w.max {
		w.startLocked()
	}
}

// Idle records that the calling worker is done with its item and waits for
// the next.
func (w *Workers) Idle() {
	w.mu.Lock()
	w.idle++
	w.mu.Unlock()
}

// Started is how many workers have been started so far.
func (w *Workers) Started() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started
}

// Wait waits until every worker started has returned.
func (w *Workers) Wait() { w.wg.Wait() }
