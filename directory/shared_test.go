// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
)

// fakeShared is a working memory holding the shared listing.
type fakeShared struct {
	mu   sync.Mutex
	vals map[string][]byte
	ttls map[string]time.Duration
	sets int
}

func newFakeShared() *fakeShared {
	return &fakeShared{vals: map[string][]byte{}, ttls: map[string]time.Duration{}}
}

func (f *fakeShared) Get(_ context.Context, key string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vals[key]
	if !ok {
		return nil, fmt.Errorf("get %q: %w", key, memory.ErrNotFound)
	}
	return v, nil
}

func (f *fakeShared) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vals[key], f.ttls[key] = value, ttl
	f.sets++
	return nil
}

func (f *fakeShared) get(key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.vals[key])
}

const sharedKey = "a2a/directory/test/known-agents"

// waitWarm waits until d is warm.
func waitWarm(t *testing.T, d *Directory) {
	t.Helper()
	testenv.Eventually(t, "the directory warm", func() bool {
		select {
		case <-d.Warm():
			return true
		default:
			return false
		}
	})
}

// isWarm reports whether d is warm now.
func isWarm(d *Directory) bool {
	select {
	case <-d.Warm():
		return true
	default:
		return false
	}
}

// A directory that starts lists at once what another directory of the
// deployment knew: the listing shared in working memory is restored when
// Run starts, before any agent announces itself again, with its instances
// (online) and their input schemas; the shared key expires ForgetAfter
// after the write.
func TestSharedListingRestoredAtStart(t *testing.T) {
	b, store := embeddedBus(t), newFakeShared()
	opts := Options{Bus: b, Shared: store, SharedKey: sharedKey, PersistDebounce: 10 * time.Millisecond,
		DiscoveryRound: 10 * time.Millisecond, ForgetAfter: time.Hour, WellKnown: []WellKnownAgent{wellKnown("Static", "s")}}
	first := newDirectory(t, opts)
	start(t, first)
	agent := newFakeAgent(b, "Worker", "work")
	agent.mustAnnounce(t, false)
	waitFor(t, first, "Worker online in the first directory", hasStatus(first, "Worker", StatusOnline))
	testenv.Eventually(t, "the listing shared", func() bool { return strings.Contains(store.get(sharedKey), agent.id) })
	store.mu.Lock()
	ttl := store.ttls[sharedKey]
	store.mu.Unlock()
	if ttl != time.Hour {
		t.Errorf("shared listing TTL = %s, want ForgetAfter (1h)", ttl)
	}

	// The restarted process: the agent does not announce again (nor answer queries).
	second := newDirectory(t, opts)
	if isWarm(second) {
		t.Fatal("a directory is warm before Run")
	}
	start(t, second)
	waitWarm(t, second)
	e, ok := second.Lookup("worker")
	if !ok || e.Status != StatusOnline || len(e.Instances) != 1 || e.Instances[0].ID != agent.id || !e.HasSkill("work") {
		t.Fatalf("restarted directory lists Worker as %+v (found %v), want it online with instance %s and skill work:\n%s",
			e, ok, agent.id, describe(second.List(Filter{})))
	}
	if e, _ := second.Lookup("Static"); e.Status != StatusWellKnown {
		t.Errorf("well-known agent restored as %s, want %s (not yet seen this session)", e.Status, StatusWellKnown)
	}
}

// The shared listing is merged into what the directory knows: a well-known
// agent keeps its seed, a record known as recently keeps what is known, a
// newer one replaces it, an unknown one is added.
func TestRegistryMerge(t *testing.T) {
	now := time.Now()
	r := newRegistry(time.Hour, 24*time.Hour, 0)
	r.restore([]storedAgent{
		{Name: "Known", Card: *card("Known", "old"), LastSeen: now.Add(-time.Minute)},
		{Name: "Newer", Card: *card("Newer", "mine"), LastSeen: now.Add(-time.Second)},
	}, now)
	r.seed([]WellKnownAgent{wellKnown("Static", "s")})
	took := r.merge([]storedAgent{
		{Name: "Static", Card: *card("Static", "shared"), LastSeen: now, Instances: []Instance{{ID: "i1", LastSeen: now}}},
		{Name: "Known", Card: *card("Known", "new"), LastSeen: now, Instances: []Instance{{ID: "i2", LastSeen: now}}},
		{Name: "Newer", Card: *card("Newer", "theirs"), LastSeen: now.Add(-time.Hour)},
		{Name: "Fresh", Card: *card("Fresh", "f"), LastSeen: now.Add(time.Hour)},
	}, now)
	if took != 2 {
		t.Errorf("merge took %d agents, want 2 (Known, Fresh)", took)
	}
	for name, want := range map[string]struct {
		skill  string
		status Status
	}{"Static": {"s", StatusWellKnown}, "Known": {"new", StatusOnline}, "Newer": {"mine", StatusOffline}, "Fresh": {"f", StatusOffline}} {
		e, ok := r.get(name)
		if !ok || !e.HasSkill(want.skill) || e.Status != want.status {
			t.Errorf("%s after merge: %+v (found %v), want skill %s, status %s", name, e, ok, want.skill, want.status)
		}
	}
	if e, _ := r.get("Fresh"); e.LastSeen.After(now) {
		t.Errorf("Fresh's last seen %s is after now: not clamped", e.LastSeen)
	}
}

// A shared listing that does not parse does not stop the directory: it is
// logged, the directory starts from the well-known agents and what is
// announced, and its next write replaces the bad listing.
func TestBadSharedListingIsReplaced(t *testing.T) {
	b, store := embeddedBus(t), newFakeShared()
	_ = store.Set(context.Background(), sharedKey, []byte(`{"version": 7, "agents": []}`), 0)
	d := newDirectory(t, Options{Bus: b, Shared: store, SharedKey: sharedKey, PersistDebounce: 10 * time.Millisecond,
		DiscoveryRound: 10 * time.Millisecond})
	start(t, d)
	waitWarm(t, d)
	agent := newFakeAgent(b, "Worker", "work")
	agent.mustAnnounce(t, false)
	testenv.Eventually(t, "the bad listing replaced", func() bool {
		_, err := parseKnownAgents(sharedKey, []byte(store.get(sharedKey)))
		return err == nil && strings.Contains(store.get(sharedKey), agent.id)
	})
}

// Warm closes DiscoveryRound after the start-up query — not before, even
// once an agent has answered — or when Run returns; a QueryOnMiss
// directory, which sends no query at start, is warm once restored.
func TestWarmAfterTheFirstDiscoveryRound(t *testing.T) {
	b := embeddedBus(t)
	agent := newFakeAgent(b, "Worker", "work")
	agent.answerQueries(t)
	long := newDirectory(t, Options{Bus: b, DiscoveryRound: time.Hour})
	start(t, long)
	waitFor(t, long, "Worker answered the query", hasStatus(long, "Worker", StatusOnline))
	if isWarm(long) {
		t.Fatal("warm before its discovery round ended")
	}
	if err := long.Close(); err != nil {
		t.Fatal(err)
	}
	if !isWarm(long) {
		t.Fatal("not warm once Run returned")
	}
	short := newDirectory(t, Options{Bus: b, DiscoveryRound: time.Millisecond})
	start(t, short)
	waitWarm(t, short)
	vetter := newDirectory(t, Options{Bus: b, QueryOnMiss: true, DiscoveryRound: time.Hour, Shared: newFakeShared(), SharedKey: sharedKey})
	start(t, vetter)
	waitWarm(t, vetter)
}

func TestSharedOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Bus: embeddedBus(t), Shared: newFakeShared()}, "SharedKey"},
		{Options{Bus: embeddedBus(t), Shared: newFakeShared(), SharedKey: "a/*"}, "SharedKey"},
		{Options{Bus: embeddedBus(t), DiscoveryRound: -time.Second}, "DiscoveryRound"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.opts, err, tc.want)
		}
	}
}

// Every directory that lists hears every announcement: a listing whose only
// change is a time (an agent announcing itself again) is written at most
// once per StaleAfter/4, while a new agent, instance or card is written at
// the next flush.
func TestSharedListingTimesOnlyWrittenEveryRefresh(t *testing.T) {
	store, clock := newFakeShared(), newClock()
	d := newDirectory(t, Options{Bus: embeddedBus(t), Shared: store, SharedKey: sharedKey, StaleAfter: 4 * time.Minute, Now: clock.Now})
	now := clock.Now()
	listing := func(at time.Time, instances ...string) []storedAgent {
		a := storedAgent{Name: "Worker", Card: *card("Worker", "work"), LastSeen: at}
		for _, id := range instances {
			a.Instances = append(a.Instances, Instance{ID: id, LastSeen: at})
		}
		return []storedAgent{a}
	}
	sets := func() int { store.mu.Lock(); defer store.mu.Unlock(); return store.sets }
	for i, step := range []struct {
		advance time.Duration
		agents  []storedAgent
		want    int
	}{
		{0, listing(now, "i1"), 1},                                          // the first write
		{10 * time.Second, listing(now.Add(10*time.Second), "i1"), 1},       // times only
		{10 * time.Second, listing(now.Add(20*time.Second), "i1", "i2"), 2}, // a new instance
		{30 * time.Second, listing(now.Add(50*time.Second), "i1", "i2"), 2}, // times only, within a minute
		{31 * time.Second, listing(now.Add(81*time.Second), "i1", "i2"), 3}, // times only, past StaleAfter/4
	} {
		clock.Advance(step.advance)
		if err := d.sharedSink(step.agents); err != nil {
			t.Fatal(err)
		}
		if got := sets(); got != step.want {
			t.Fatalf("step %d: %d writes of the shared listing, want %d", i, got, step.want)
		}
	}
}
