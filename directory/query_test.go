package directory

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// countQueries counts the discovery queries published on b's exchange.
func countQueries(t *testing.T, b bus.Bus) *atomic.Int32 {
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
	var n atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(context.Context, *bus.Delivery) error {
			n.Add(1)
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return &n
}

// A directory that only vets targets (QueryOnMiss) does not query at start:
// a known target resolves without a query, an unknown one sends one query
// (answered by the running agent), and misses closer together than
// MinQueryGap send no more.
func TestQueryOnMiss(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		queries := countQueries(t, w.Connect(t))
		agents := w.Connect(t)
		alpha := newFakeAgent(agents, w.N("Alpha"), "a")
		alpha.answerQueries(t)
		known := w.N("Known")
		clk := newClock()
		d := newDirectory(t, Options{Bus: w.Connect(t), WellKnown: []WellKnownAgent{wellKnown(known, "k")}, QueryOnMiss: true, Now: clk.Now})
		start(t, d)
		patient := func(wait time.Duration) PatientResolver {
			return PatientResolver{Ctx: context.Background(), Directory: d, Wait: wait}
		}

		if name, err := patient(10*time.Second).Resolve(known, "k"); err != nil || name != known {
			t.Fatalf("resolve the well-known agent = %q, %v", name, err)
		}
		time.Sleep(300 * time.Millisecond) // room for a start-up query to be answered, if one had gone out
		if _, ok := d.Lookup(alpha.card.Name); ok {
			t.Fatal("the running agent is listed: the directory queried at start")
		}
		if name, err := patient(10*time.Second).Resolve(alpha.card.Name, "a"); err != nil || name != alpha.card.Name {
			t.Fatalf("resolve the running agent = %q, %v", name, err)
		}
		waitCount(t, queries, 1)

		if _, err := patient(200*time.Millisecond).Resolve(w.N("Nobody"), "x"); a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			t.Fatalf("resolve an unknown agent: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
		if n := queries.Load(); n != 1 {
			t.Fatalf("%d queries, want 1: a miss within MinQueryGap of the last query sends none", n)
		}
		clk.Advance(MinQueryGap)
		if _, err := patient(200*time.Millisecond).Resolve(w.N("Nobody"), "x"); a2a.CodeOf(err) != a2a.CodeAgentNotFound {
			t.Fatalf("resolve an unknown agent again: %v", err)
		}
		waitCount(t, queries, 2)
	})
}

// waitCount waits until n reaches want, failing after 10s.
func waitCount(t *testing.T, n *atomic.Int32, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d queries seen, want %d", n.Load(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
