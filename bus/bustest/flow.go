// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// testCompetingConsumers: two connections consuming one queue share the work
// and every message is handled exactly once.
func testCompetingConsumers(t *testing.T, env Env) {
	const n, publishers = 100, 4
	pub := connect(t, env)
	spec := taskQueue(t, pub)

	// Each consumer holds its first delivery until the other has one too, so
	// the test fails if one consumer could take all the work.
	var both sync.WaitGroup
	both.Add(2)
	bothDone := make(chan struct{})
	go func() { both.Wait(); close(bothDone) }()
	all := newRecorder()
	start := func() *recorder {
		mine := newRecorder()
		var first sync.Once
		consume(t, connect(t, env), spec.Name, bus.ConsumeOptions{Concurrency: 1}, func(_ context.Context, d *bus.Delivery) error {
			mine.add(d)
			all.add(d)
			first.Do(func() {
				both.Done()
				select {
				case <-bothDone:
				case <-time.After(waitBound):
					t.Errorf("the other consumer got nothing within %v", waitBound)
				}
			})
			return nil
		})
		return mine
	}
	a, b := start(), start()

	ids := make([]string, n)
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := p; i < n; i += publishers {
				m := message(spec.Bindings[0])
				ids[i] = m.MessageID
				if err := pub.Publish(t.Context(), m); err != nil {
					t.Errorf("publish %d: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	testenv.Eventually(t, "all messages consumed", func() bool { return all.has(ids...) })
	for _, id := range ids {
		if c := all.count(id); c != 1 {
			t.Errorf("message %q consumed %d times, want once", id, c)
		}
	}
	if a.len() == 0 || b.len() == 0 {
		t.Errorf("work not shared: consumers got %d and %d", a.len(), b.len())
	}
	if got := all.len(); got != n {
		t.Errorf("%d deliveries for %d messages", got, n)
	}
}

// testConcurrency: with Concurrency N and a backlog, N handlers run at once
// and never more. While its N handlers are held the consumer takes no more
// deliveries, so a second consumer gets all the rest: that, not a pause, is
// the sign that the first had every chance to start an N+1st handler. (One
// that took more deliveries would either start more handlers, which peak
// records, or keep them from the second consumer, which then never gets all.)
func testConcurrency(t *testing.T, env Env) {
	const limit, n = 4, 12
	b := connect(t, env)
	spec := taskQueue(t, b)
	publishN(t, b, spec.Bindings[0], n)

	var running, peak, handled atomic.Int32
	release := make(chan struct{})
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: limit}, func(ctx context.Context, _ *bus.Delivery) error {
		cur := running.Add(1)
		defer running.Add(-1)
		raise(&peak, cur)
		select {
		case <-release:
		case <-ctx.Done():
		}
		handled.Add(1)
		return nil
	})
	testenv.Eventually(t, "Concurrency handlers running at once", func() bool { return running.Load() >= limit })
	rest := newRecorder()
	consume(t, connect(t, env), spec.Name, bus.ConsumeOptions{}, rest.handle)
	testenv.Eventually(t, "a second consumer gets every delivery the held consumer did not take",
		func() bool { return rest.len() >= n-limit || peak.Load() > limit }, // too many handlers: reported below
		testenv.Explain(func() string {
			return fmt.Sprintf("the second consumer got %d of %d; the first runs %d handlers", rest.len(), n-limit, running.Load())
		}))
	if p := peak.Load(); p != limit {
		t.Errorf("%d handlers ran at once with Concurrency %d", p, limit)
	}
	close(release)
	testenv.Eventually(t, "held handlers finished", func() bool { return handled.Load() >= limit })
	if h, r := handled.Load(), rest.len(); h != limit || r != n-limit {
		t.Errorf("the held consumer handled %d and the second %d messages, want %d and %d", h, r, limit, n-limit)
	}
}

// testOrderedPerCorrelation: with Ordered, the messages of one correlation
// id are handled one at a time in queue order, while other ids go on.
func testOrderedPerCorrelation(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	ids := []string{"task-" + unique(), "task-" + unique(), "task-" + unique()}
	const perID = 5
	for i := range perID {
		for _, id := range ids {
			m := message(spec.Bindings[0])
			m.CorrelationID = id
			m.Headers = map[string]string{"seq": strconv.Itoa(i)}
			publish(t, b, m)
		}
	}
	var mu sync.Mutex
	running := map[string]bool{}
	order := map[string][]string{}
	overlapOther := false
	var total atomic.Int32
	done := make(chan struct{})
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 4, Ordered: true}, func(_ context.Context, d *bus.Delivery) error {
		mu.Lock()
		if running[d.CorrelationID] {
			mu.Unlock()
			t.Errorf("two messages of %s handled at once", d.CorrelationID)
			return nil
		}
		running[d.CorrelationID] = true
		for id, r := range running {
			if r && id != d.CorrelationID {
				overlapOther = true
			}
		}
		order[d.CorrelationID] = append(order[d.CorrelationID], d.Headers["seq"])
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // let the other lanes run meanwhile
		mu.Lock()
		running[d.CorrelationID] = false
		mu.Unlock()
		if total.Add(1) == int32(perID*len(ids)) {
			close(done)
		}
		return nil
	})
	wait(t, "every message handled", done)
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		if got := strings.Join(order[id], ","); got != "0,1,2,3,4" {
			t.Errorf("%s handled in order %s, want 0,1,2,3,4", id, got)
		}
	}
	if !overlapOther {
		t.Error("different correlation ids never ran concurrently")
	}
}
