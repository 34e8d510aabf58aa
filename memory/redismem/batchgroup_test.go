// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"runtime"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

// A batch that finds a pipeline on the wire goes out after it; the caller
// that flushed its own batch returns, and the groups that queued meanwhile
// are flushed in order, one pipeline at a time, until none is left.
func TestBatchGroupFlushesTheQueueInOrder(t *testing.T) {
	var g batchGroup
	full := make([]memory.Op, maxGroupOps) // a batch a group
	var mu sync.Mutex
	var flushed [][]*pendingBatch
	flying := false
	release := make(chan struct{})
	g.flush = func(group []*pendingBatch) {
		mu.Lock()
		if flying {
			t.Error("two pipelines on the wire at once")
		}
		first := len(flushed) == 0
		flushed, flying = append(flushed, group), true
		mu.Unlock()
		if first {
			<-release // the first pipeline is on the wire while the others queue
		}
		mu.Lock()
		flying = false
		mu.Unlock()
		for _, b := range group {
			close(b.done)
		}
	}
	batches := make([]*pendingBatch, 4)
	for i := range batches {
		batches[i] = &pendingBatch{ops: full, done: make(chan struct{})}
	}
	submitted := make(chan struct{})
	go func() {
		g.submit(batches[0])
		close(submitted)
	}()
	<-waitFlushing(&g)
	for _, b := range batches[1:] {
		g.submit(b) // queued: returns at once
	}
	close(release)
	<-submitted
	for _, b := range batches {
		<-b.done
	}
	mu.Lock()
	defer mu.Unlock()
	if len(flushed) != len(batches) {
		t.Fatalf("%d groups flushed, want %d", len(flushed), len(batches))
	}
	for i, group := range flushed {
		if len(group) != 1 || group[0] != batches[i] {
			t.Fatalf("group %d is not batch %d alone", i, i)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.flying || len(g.queue) != 0 {
		t.Fatalf("flying %v with %d queued after the last flush", g.flying, len(g.queue))
	}
}

// waitFlushing returns a channel closed once g has a pipeline on the wire.
func waitFlushing(g *batchGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			g.mu.Lock()
			flying := g.flying && len(g.queue) == 0
			g.mu.Unlock()
			if flying {
				return
			}
			runtime.Gosched()
		}
	}()
	return ch
}

// A lone batch costs its group no more than the queue it waits in: no
// method value or goroutine a call.
func TestBatchGroupSubmitAllocatesOnlyItsQueue(t *testing.T) {
	g := batchGroup{flush: func(group []*pendingBatch) {}}
	b := &pendingBatch{ops: make([]memory.Op, 1)}
	if n := testing.AllocsPerRun(100, func() { g.submit(b) }); n > 1 {
		t.Fatalf("submit allocates %v objects, want at most 1 (its queue)", n)
	}
}
