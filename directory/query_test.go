// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// markerPrefix starts the message id of a queryProbe's own markers.
const markerPrefix = "probe-marker-"

// queryProbe counts the discovery queries published on a bus's exchange.
type queryProbe struct {
	b     bus.Bus
	n     atomic.Int32
	marks chan int32 // the count when a marker arrived
}

// countQueries starts a probe on b that counts discovery queries until the
// test ends.
func countQueries(t *testing.T, b bus.Bus) *queryProbe {
	t.Helper()
	spec, err := bus.InstanceQueue("QueryProbe", uuid.NewString(), a2a.RoutingKeyDiscoveryQuery)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := b.Declare(ctx, spec); err != nil {
		cancel()
		t.Fatal(err)
	}
	p := &queryProbe{b: b, marks: make(chan int32, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// One at a time, in queue order: a marker comes after every query
		// published before it.
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 1}, func(_ context.Context, d *bus.Delivery) error {
			if strings.HasPrefix(d.MessageID, markerPrefix) {
				p.marks <- p.n.Load()
			} else {
				p.n.Add(1)
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

// settled publishes a marker query and returns how many queries the probe
// counted before the marker arrived: every query whose publish returned
// before this call is among them, as the probe's queue keeps their order.
// (Agents answer the marker like any query.)
func (p *queryProbe) settled(t *testing.T) int32 {
	t.Helper()
	env, err := a2a.Codec{}.Encode(&a2a.DiscoveryQuery{Time: time.Now()}, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	m := bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyDiscoveryQuery}
	m.MessageID = markerPrefix + uuid.NewString()
	m.Transient = true
	ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitBound)
	defer cancel()
	if err := p.b.Publish(ctx, m); err != nil {
		t.Fatalf("publish the probe's marker: %v", err)
	}
	select {
	case n := <-p.marks:
		return n
	case <-ctx.Done():
		t.Fatalf("the probe's marker did not arrive within %v", testenv.WaitBound)
		return 0
	}
}

// A directory that only vets targets (QueryOnMiss) does not query at start:
// a known target resolves without a query, an unknown one sends one query
// (answered by the running agent), and misses closer together than
// MinQueryGap send no more.
func TestQueryOnMiss(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		queries := countQueries(t, w.Connect(t))
		agents := w.Connect(t)
		alpha := newFakeAgent(agents, w.N("Alpha"), "a")
		alpha.answerQueries(t)
		known := w.N("Known")
		clk := &offsetClock{} // the agents date their cards by the real clock
		d := newDirectory(t, Options{Bus: w.Connect(t), WellKnown: []WellKnownAgent{wellKnown(known, "k")}, QueryOnMiss: true, Now: clk.Now})
		start(t, d)
		patient := func(wait time.Duration) PatientResolver {
			return PatientResolver{Directory: d, Wait: wait}
		}

		if name, err := patient(10*time.Second).Resolve(t.Context(), known, "k"); err != nil || name != known {
			t.Fatalf("resolve the well-known agent = %q, %v", name, err)
		}
		if name, err := patient(10*time.Second).Resolve(t.Context(), alpha.card.Name, "a"); err != nil || name != alpha.card.Name {
			t.Fatalf("resolve the running agent = %q, %v", name, err)
		}
		// A miss publishes its query, if it sends one, before Resolve returns.
		if _, err := patient(200*time.Millisecond).Resolve(t.Context(), w.N("Nobody"), "x"); a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			t.Fatalf("resolve an unknown agent: %v", err)
		}
		if n := queries.settled(t); n != 1 {
			t.Fatalf("%d queries, want 1 (the first miss's): none at start, none for a miss within MinQueryGap of the last query", n)
		}
		clk.Advance(MinQueryGap)
		if _, err := patient(200*time.Millisecond).Resolve(t.Context(), w.N("Nobody"), "x"); a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			t.Fatalf("resolve an unknown agent again: %v", err)
		}
		// Once Close returns, Run has returned: a start-up query would have
		// been published by then.
		if err := d.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if n := queries.settled(t); n != 2 {
			t.Fatalf("%d queries, want 2: one for each miss MinQueryGap apart, none at start", n)
		}
	})
}
