// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// newClock is a settable test clock.
func newClock() *testenv.Clock { return testenv.NewClock() }

// offsetClock is the real clock moved forward by Advance: announcements
// dated by the real clock stay within MaxClockSkew of it.
type offsetClock struct{ offset atomic.Int64 }

// Now is the real time plus the advances.
func (c *offsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d.
func (c *offsetClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// card returns an agent card with the given skill ids.
func card(name string, skills ...string) *a2a.AgentCard {
	c := &a2a.AgentCard{Name: name, Description: name + " does things", Version: "1.0"}
	for _, s := range skills {
		c.Skills = append(c.Skills, a2a.AgentSkill{ID: s, Name: strings.ToUpper(s), Description: "skill " + s, Tags: []string{}})
	}
	return c
}

func announcement(name, instanceID string, at time.Time, deregistering bool, skills ...string) *a2a.Announcement {
	return &a2a.Announcement{Card: card(name, skills...), InstanceID: instanceID, Time: at, Deregistering: deregistering}
}

func wellKnown(name string, skills ...string) WellKnownAgent {
	w := WellKnownAgent{AgentName: name, Description: "well-known " + name, Version: "1.0"}
	for _, s := range skills {
		w.Skills = append(w.Skills, WellKnownSkill{ID: s, Name: s, Description: "skill " + s})
	}
	return w
}

// embeddedBus returns a connection to a new in-process broker.
func embeddedBus(t testing.TB) bus.Bus {
	t.Helper()
	b := inproc.New(inproc.Options{})
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// newDirectory builds a directory, closed at cleanup.
func newDirectory(t testing.TB, opts Options) *Directory {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// start runs d in the background; cleanup closes it and checks Run's result.
func start(t *testing.T, d *Directory) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		// ErrClosed: the test ended before Run began.
		if err := <-errc; err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Run: %v", err)
		}
	})
}

// waitFor waits until cond holds, re-checking on every change of d too; on
// failure it shows what d lists instead.
func waitFor(t *testing.T, d *Directory, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, cond, testenv.WakeOn(d.Changes()),
		testenv.Explain(func() string { return "directory lists:\n" + describe(d.List(Filter{})) }))
}

func describe(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "  %s %s skills=%v instances=%d lastSeen=%s\n", e.Name, e.Status, e.SkillIDs(), len(e.Instances), e.LastSeenText())
	}
	return b.String()
}

// hasStatus reports whether d lists name with status.
func hasStatus(d *Directory, name string, status Status) func() bool {
	return func() bool {
		e, ok := d.Lookup(name)
		return ok && e.Status == status
	}
}

// fakeAgent stands in for a running agent: it announces its card and, once
// answerQueries is called, answers discovery.query with an announcement.
type fakeAgent struct {
	bus     bus.Bus
	card    *a2a.AgentCard
	id      string
	secret  []byte                     // signs announcements when set
	key     ed25519.PrivateKey         // signs announcements with ed25519 when set
	schemas map[string]json.RawMessage // input schemas announced with the card
	dated   func() time.Time           // the time announcements carry; nil means time.Now
}

func newFakeAgent(b bus.Bus, name string, skills ...string) *fakeAgent {
	return &fakeAgent{bus: b, card: card(name, skills...), id: uuid.NewString()}
}

// announce publishes the agent's card; ErrUnroutable means no directory listens yet.
func (f *fakeAgent) announce(ctx context.Context, deregistering bool) error {
	at := time.Now()
	if f.dated != nil {
		at = f.dated()
	}
	env, err := a2a.Codec{}.Encode(&a2a.Announcement{Card: f.card, InstanceID: f.id, Time: at, Deregistering: deregistering,
		InputSchemas: f.schemas}, a2a.Trace{})
	if err != nil {
		return err
	}
	if f.secret != nil {
		a2a.Sign(&env, f.secret)
	}
	if f.key != nil {
		a2a.SignEd25519(&env, f.key)
	}
	return f.bus.Publish(ctx, bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyAnnounce})
}

// mustAnnounce announces, retrying while no directory queue is bound yet.
func (f *fakeAgent) mustAnnounce(t *testing.T, deregistering bool) {
	t.Helper()
	publishRouted(t, func(ctx context.Context) error { return f.announce(ctx, deregistering) })
}

// publishRouted calls publish until it is routed (the directory's queue is
// bound once Run has started), failing the test on another error.
func publishRouted(t *testing.T, publish func(ctx context.Context) error) {
	t.Helper()
	var err error
	testenv.Eventually(t, "the publish routed to a directory's queue", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.WaitBound)
		defer cancel()
		if err = publish(ctx); err != nil && !errors.Is(err, bus.ErrUnroutable) {
			t.Fatalf("publish: %v", err)
		}
		return err == nil
	}, testenv.Explain(func() string { return fmt.Sprint("last publish: ", err) }))
}

// answerQueries declares the agent's instance queue bound to discovery.query
// and answers every query with an announcement until the test ends.
func (f *fakeAgent) answerQueries(t *testing.T) {
	t.Helper()
	spec, err := bus.InstanceQueue(f.card.Name, f.id, a2a.RoutingKeyDiscoveryQuery)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := f.bus.Declare(ctx, spec); err != nil {
		cancel()
		t.Fatalf("declare %s: %v", spec.Name, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.bus.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(ctx context.Context, d *bus.Delivery) error {
			if d.Kind != a2a.KindDiscoveryQuery {
				return nil
			}
			if err := f.announce(ctx, false); err != nil && !errors.Is(err, bus.ErrUnroutable) {
				return err
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
}
