// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// announcements listens on discovery.announce like a directory would.
type announcements struct {
	mu  sync.Mutex
	got []*a2a.Announcement
}

func listenAnnouncements(t *testing.T, h *harness) *announcements {
	t.Helper()
	b := h.broker.Connect()
	spec, err := bus.InstanceQueue("Directory", "test", a2a.RoutingKeyAnnounce)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	l := &announcements{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			p, err := h.codec.Decode(d.Envelope)
			if err != nil {
				t.Errorf("undecodable announcement: %v", err)
				return nil
			}
			l.mu.Lock()
			l.got = append(l.got, p.(*a2a.Announcement))
			l.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return l
}

func (l *announcements) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.got)
}

func (l *announcements) last() *a2a.Announcement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got[len(l.got)-1]
}

func TestAnnouncesAtStartOnQueryPeriodicallyAndDeregisters(t *testing.T) {
	h := newHarness(t)
	l := listenAnnouncements(t, h)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Worker", Description: "does work", Version: "3"}, AnnounceInterval: 300 * time.Millisecond,
		InstanceID: "inst-1"}, map[string]Handler{"echo": echo})
	errc := h.start(a)

	testenv.Eventually(h.t, "the start announcement", func() bool { return l.count() >= 1 })
	first := l.last()
	if first.Card.Name != "Worker" || first.Card.Version != "3" || first.InstanceID != "inst-1" || first.Deregistering ||
		len(first.Card.Skills) != 1 || first.Card.Skills[0].ID != "echo" {
		t.Fatalf("announcement = %+v, card %+v", first, first.Card)
	}
	// A directory's query is answered at once.
	n := l.count()
	env, err := h.codec.Encode(&a2a.DiscoveryQuery{From: "Directory", Time: time.Now()}, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyDiscoveryQuery}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(h.t, "the answer to discovery.query", func() bool { return l.count() > n })
	// And it goes on announcing on its own.
	n = l.count()
	testenv.Eventually(h.t, "a periodic announcement", func() bool { return l.count() > n })

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(h.t, "the deregistration", func() bool { return l.last().Deregistering })
}

func TestAnnouncingWithoutADirectoryIsFine(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{AnnounceInterval: 50 * time.Millisecond}, map[string]Handler{"echo": echo})
	h.start(a)
	req := h.send("Worker", "echo", "still works")
	if _, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok {
		t.Fatalf("reply = %+v", h.final(req.TaskID))
	}
}

func TestAnnouncementsAreSignedWithTheSecret(t *testing.T) {
	h := newHarness(t)
	secret := []byte("0123456789abcdef-secret")
	b := h.broker.Connect()
	spec, _ := bus.InstanceQueue("Directory", "signed", a2a.RoutingKeyAnnounce)
	if err := b.Declare(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	h.start(h.agent(Options{AnnounceSecret: secret}, map[string]Handler{"echo": echo}))
	got := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			select {
			case got <- a2a.Verify(d.Envelope, secret, time.Now()):
			default:
			}
			return nil
		})
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("announcement does not verify: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no announcement")
	}
}

// A held agent announces nothing — not periodically, not to a directory's
// query, not on Announce — until released; after its deregistration,
// Announce lists it no more.
func TestHeldAnnouncementsAndAnnounce(t *testing.T) {
	h := newHarness(t)
	l := listenAnnouncements(t, h)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Bridge"}, AnnounceInterval: 50 * time.Millisecond, InstanceID: "inst-held"},
		map[string]Handler{"echo": echo})
	a.HoldAnnouncements(true)
	a.Announce(context.Background()) // not running yet: nothing
	errc := h.start(a)
	env, err := h.codec.Encode(&a2a.DiscoveryQuery{From: "Directory", Time: time.Now()}, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the query routed to the started agent", func() bool {
		return h.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyDiscoveryQuery}) == nil
	})
	a.Announce(context.Background())
	time.Sleep(500 * time.Millisecond) // ten announce intervals, and the query's answer had time to go out
	if n := l.count(); n != 0 {
		t.Fatalf("%d announcements while held, want none", n)
	}
	a.HoldAnnouncements(false)
	a.Announce(context.Background())
	testenv.Eventually(t, "the announcement once released", func() bool { return l.count() >= 1 })
	if got := l.last(); got.Deregistering || got.Card.Name != "Bridge" {
		t.Fatalf("announcement = %+v", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the deregistration", func() bool { return l.last().Deregistering })
	n := l.count()
	a.Announce(context.Background())
	time.Sleep(200 * time.Millisecond)
	if l.count() != n || !l.last().Deregistering {
		t.Fatalf("Announce after the deregistration sent %d more, last %+v", l.count()-n, l.last())
	}
}
