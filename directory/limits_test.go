// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// The warnings of dropped announcements.
const (
	fullMsg   = "announcement of a new agent dropped: the directory is full"
	cardMsg   = "oversized announcement dropped"
	futureMsg = "announcement dated out of bounds dropped"
)

// observed returns a logger whose warnings the test can read.
func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.WarnLevel)
	return zap.New(core), logs
}

// warnings returns the context of every warning logged with msg.
func warnings(logs *observer.ObservedLogs, msg string) []map[string]any {
	var out []map[string]any
	for _, e := range logs.FilterMessage(msg).All() {
		out = append(out, e.ContextMap())
	}
	return out
}

// learnedLen returns how many agents are known that are not well-known.
func (r *registry) learnedLen() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.learned
}

func TestRegistryMaxAgents(t *testing.T) {
	r := newRegistry(testStale, testForget, 2)
	r.seed([]WellKnownAgent{wellKnown("Known", "k")})
	mustApply(t, r, announcement("Alpha", "a1", at(0), false), at(0), "", StatusOnline)
	mustApply(t, r, announcement("Beta", "b1", at(0), true), at(0), "", StatusOffline)
	if _, _, res := r.apply(announcement("Gamma", "g1", at(time.Second), false), at(time.Second)); res != full {
		t.Fatalf("a third agent past MaxAgents 2: outcome %d, want refused as full", res)
	}
	if _, ok := r.get("Gamma"); ok {
		t.Fatal("the refused agent is listed")
	}
	// Known agents keep updating; the well-known one is not counted.
	mustApply(t, r, announcement("alpha", "a2", at(time.Second), false, "new"), at(time.Second), StatusOnline, StatusOnline)
	mustApply(t, r, announcement("Known", "k1", at(time.Second), false, "k"), at(time.Second), StatusWellKnown, StatusOnline)
	// A forgotten agent makes room.
	r.sweep(at(testForget))
	if _, ok := r.get("Beta"); ok {
		t.Fatal("Beta was not forgotten")
	}
	mustApply(t, r, announcement("Gamma", "g1", at(testForget), false), at(testForget), "", StatusOnline)
	if n := r.learnedLen(); n != 2 {
		t.Errorf("%d agents counted, want 2 (Alpha, Gamma; the well-known Known is not counted)", n)
	}
}

func TestMaxAgentsDropsNewAgentsOnly(t *testing.T) {
	b := embeddedBus(t)
	log, logs := observed()
	clk := &offsetClock{}
	d := newDirectory(t, Options{Bus: b, MaxAgents: 2, WellKnown: []WellKnownAgent{wellKnown("Known", "k")}, Logger: log, Now: clk.Now})
	start(t, d)
	alpha, beta := newFakeAgent(b, "Alpha", "a"), newFakeAgent(b, "Beta", "b")
	alpha.mustAnnounce(t, false)
	beta.mustAnnounce(t, false)
	waitFor(t, d, "Alpha and Beta online", func() bool { return hasStatus(d, "Alpha", StatusOnline)() && hasStatus(d, "Beta", StatusOnline)() })

	// reannounce announces Alpha's card with a new version and waits for
	// it: the directory's queue keeps order, so every announcement
	// published before has been handled by then.
	version := 1
	reannounce := func() {
		t.Helper()
		version++
		c := *alpha.card
		c.Version = fmt.Sprint(version)
		alpha.card = &c
		alpha.mustAnnounce(t, false)
		waitFor(t, d, "Alpha's card version "+c.Version, func() bool { e, _ := d.Lookup("Alpha"); return e.Card.Version == c.Version })
	}

	newFakeAgent(b, "Gamma", "g").mustAnnounce(t, false)
	newFakeAgent(b, "Known", "k").mustAnnounce(t, false)
	reannounce()
	if _, ok := d.Lookup("Gamma"); ok {
		t.Error("Gamma, a new agent past MaxAgents, is listed")
	}
	if !hasStatus(d, "Known", StatusOnline)() {
		t.Error("the well-known agent's announcement was not applied")
	}
	w := warnings(logs, fullMsg)
	if len(w) != 1 || w[0]["agent"] != "Gamma" || w[0]["max_agents"] != int64(2) || w[0]["dropped_unlogged"] != int64(0) {
		t.Fatalf("warnings = %v, want one naming Gamma and max_agents 2", w)
	}

	// Further drops within a minute are counted, not logged.
	newFakeAgent(b, "Delta").mustAnnounce(t, false)
	newFakeAgent(b, "Epsilon").mustAnnounce(t, false)
	reannounce()
	if n := logs.FilterMessage(fullMsg).Len(); n != 1 {
		t.Fatalf("%d warnings after three drops within a minute, want 1", n)
	}
	clk.Advance(dropLogEvery)
	newFakeAgent(b, "Zeta").mustAnnounce(t, false)
	reannounce()
	w = warnings(logs, fullMsg)
	if len(w) != 2 || w[1]["agent"] != "Zeta" || w[1]["dropped_unlogged"] != int64(2) {
		t.Fatalf("warnings = %v, want a second one a minute later naming Zeta and the 2 drops not logged", w)
	}
	if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{"Alpha", "Beta", "Known"}) {
		t.Errorf("lists %v, want [Alpha Beta Known]", got)
	}
}

func TestOversizedCardsAreDropped(t *testing.T) {
	b := embeddedBus(t)
	log, logs := observed()
	clk := &offsetClock{}
	d := newDirectory(t, Options{Bus: b, MaxCardBytes: 32 << 10, Logger: log, Now: clk.Now})
	start(t, d)

	big := newFakeAgent(b, "Big")
	big.card.Description = strings.Repeat("x", 33<<10)
	var ids []string
	for i := range MaxCardSkills + 1 {
		ids = append(ids, fmt.Sprint("s", i))
	}
	many := newFakeAgent(b, "Many", ids...)
	long := newFakeAgent(b, "Long")
	long.card.Description = strings.Repeat("d", MaxDescriptionBytes+1)
	wordy := newFakeAgent(b, "Wordy", "w")
	wordy.card.Skills[0].Description = strings.Repeat("w", MaxDescriptionBytes+1)

	for i, c := range []struct {
		agent *fakeAgent
		limit string
	}{
		{big, "more than the limit of 32768 bytes (MaxCardBytes)"},
		{many, "the card lists 257 skills, more than the limit of 256"},
		{long, "the card's description is 8193 bytes, more than the limit of 8192 bytes"},
		{wordy, `skills[0] "w": the description is 8193 bytes, more than the limit of 8192 bytes`},
	} {
		c.agent.mustAnnounce(t, false)
		testenv.Eventually(t, fmt.Sprintf("warning #%d", i+1), func() bool { return logs.FilterMessage(cardMsg).Len() == i+1 })
		w := warnings(logs, cardMsg)[i]
		if w["agent"] != c.agent.card.Name || !strings.Contains(w["reason"].(string), c.limit) {
			t.Errorf("warning %v, want one naming %s and %q", w, c.agent.card.Name, c.limit)
		}
		clk.Advance(dropLogEvery) // the next drop is logged too
	}
	fine := newFakeAgent(b, "Fine", "f")
	fine.mustAnnounce(t, false)
	waitFor(t, d, "Fine online", hasStatus(d, "Fine", StatusOnline))
	if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{"Fine"}) {
		t.Errorf("lists %v, want only Fine", got)
	}
}

// TestFutureDatedAnnouncementCannotPinItsCard: a card signed with the
// secret but dated 100 years ahead would be newer than every genuine
// announcement to come; it is dropped, and the genuine card is listed.
func TestFutureDatedAnnouncementCannotPinItsCard(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		secret := []byte("the-shared-announce-secret")
		log, logs := observed()
		d := newDirectory(t, Options{Bus: w.Connect(t), AnnounceSecret: secret, Logger: log})
		start(t, d)
		name := w.N("Genuine")
		pinner := newFakeAgent(w.Connect(t), name, "echo")
		pinner.secret = secret
		pinner.card.Description = "pinned: dated 100 years ahead"
		pinner.dated = func() time.Time { return time.Now().AddDate(100, 0, 0) }
		genuine := newFakeAgent(w.Connect(t), name, "echo")
		genuine.secret = secret
		genuine.card.Description = "the genuine card"

		pinner.mustAnnounce(t, false)
		genuine.mustAnnounce(t, false) // queued after the pinner's
		waitFor(t, d, "the genuine card listed", func() bool { e, _ := d.Lookup(name); return e.Card.Description == genuine.card.Description })
		if e, _ := d.Lookup(name); !reflect.DeepEqual(instanceIDs(e), []string{genuine.id}) {
			t.Errorf("instances %v, want only the genuine %s", instanceIDs(e), genuine.id)
		}
		ws := warnings(logs, futureMsg)
		if len(ws) != 1 || ws[0]["agent"] != name || ws[0]["agent_instance"] != pinner.id ||
			!strings.Contains(ws[0]["reason"].(string), "more than 1m0s (MaxClockSkew) ahead of the directory's clock") {
			t.Errorf("warnings %v, want one naming %s, the pinner's instance and the skew", ws, name)
		}

		// The genuine agent's later announcements keep updating its card.
		c := *genuine.card
		c.Version = "2.0"
		genuine.card = &c
		genuine.mustAnnounce(t, false)
		waitFor(t, d, "the genuine card's new version", func() bool { e, _ := d.Lookup(name); return e.Card.Version == "2.0" })
	})
}

func TestTimeProblem(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		at, sent  time.Time
		wantMatch string // "" means accepted
	}{
		{"now", now, now, ""},
		{"within the skew ahead", now.Add(time.Minute), now.Add(time.Minute), ""},
		{"an hour old", now.Add(-time.Hour), now.Add(-time.Hour), ""},
		{"sub-second body, second envelope", now.Add(900 * time.Millisecond), now, ""},
		{"no envelope time", now, time.Time{}, ""},
		{"100 years ahead", now.AddDate(100, 0, 0), now, "dated 2126-01-01T12:00:00Z, more than 1m0s (MaxClockSkew) ahead of the directory's clock (2026-01-01T12:00:00Z)"},
		{"ahead of the clock, unstamped", now.Add(2 * time.Minute), time.Time{}, "ahead of the directory's clock"},
		{"behind its envelope", now.Add(-3 * time.Minute), now, "dated 2026-01-01T11:57:00Z, more than 1m0s (MaxClockSkew) from the time it was sent (2026-01-01T12:00:00Z)"},
		{"ahead of its envelope", now, now.Add(-2 * time.Minute), "from the time it was sent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := timeProblem(tt.at, tt.sent, now, time.Minute)
			if (tt.wantMatch == "") != (got == "") || !strings.Contains(got, tt.wantMatch) {
				t.Errorf("timeProblem = %q, want %q", got, tt.wantMatch)
			}
		})
	}
}

func TestThrottle(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var th throttle // dropLogEvery: a minute
	for i, step := range []struct {
		at         time.Duration
		ok         bool
		suppressed int
	}{
		{0, true, 0}, {time.Second, false, 0}, {59 * time.Second, false, 0}, {time.Minute, true, 2}, {time.Minute, false, 0},
		{-time.Hour, true, 1}, // a clock that went back does not silence it
	} {
		if ok, n := th.allow(now.Add(step.at)); ok != step.ok || n != step.suppressed {
			t.Errorf("step %d at %v: allow = %v, %d; want %v, %d", i, step.at, ok, n, step.ok, step.suppressed)
		}
	}
}

// TestRestoreClampsFutureTimes: a known-agents file with times after now
// (an edited file, a clock that went back) would keep an agent online and
// unforgotten for ever; they are clamped to now, so it ages as usual.
func TestRestoreClampsFutureTimes(t *testing.T) {
	clk := newClock()
	future := clk.Now().AddDate(100, 0, 0)
	file := filepath.Join(t.TempDir(), "known-agents.json")
	if err := saveKnownAgents(file, []storedAgent{
		{Name: "Pinned", Card: *card("Pinned"), LastSeen: future, Instances: []Instance{{ID: "p1", LastSeen: future}}},
		{Name: "Usual", Card: *card("Usual"), LastSeen: clk.Now().Add(-time.Second), Instances: []Instance{}},
	}); err != nil {
		t.Fatal(err)
	}
	log, logs := observed()
	d, err := New(Options{Bus: embeddedBus(t), KnownAgentsFile: file, Now: clk.Now, Logger: log, StaleAfter: time.Minute, ForgetAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := d.Lookup("Pinned")
	if e.Status != StatusOnline || !e.LastSeen.Equal(clk.Now()) || len(e.Instances) != 1 || !e.Instances[0].LastSeen.Equal(clk.Now()) {
		t.Fatalf("restored Pinned = %+v; want online, seen (and its instance) now, %s", e, clk.Now())
	}
	if w := warnings(logs, "known agents dated in the future clamped to now"); len(w) != 1 || !reflect.DeepEqual(w[0]["agents"], []any{"Pinned"}) {
		t.Errorf("warnings %v, want one naming Pinned", w)
	}
	if err := d.Close(); err != nil { // never ran: Close writes the clamped times
		t.Fatal(err)
	}
	stored, err := loadKnownAgents(file, anyFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stored {
		if s.LastSeen.After(clk.Now()) {
			t.Errorf("the file still dates %s at %s", s.Name, s.LastSeen)
		}
	}

	clk.Advance(time.Minute)
	if offline, _ := d.reg.sweep(clk.Now()); !reflect.DeepEqual(offline, []string{"Pinned"}) {
		t.Errorf("StaleAfter after the restore, offline = %v, want [Pinned]", offline)
	}
	clk.Advance(time.Hour)
	if _, forgotten := d.reg.sweep(clk.Now()); !reflect.DeepEqual(forgotten, []string{"Pinned", "Usual"}) {
		t.Errorf("ForgetAfter later, forgotten = %v, want [Pinned Usual]", forgotten)
	}
}

func TestRestoreKeepsTheMostRecentlySeenUpToMaxAgents(t *testing.T) {
	clk := newClock()
	now := clk.Now()
	file := filepath.Join(t.TempDir(), "known-agents.json")
	if err := saveKnownAgents(file, []storedAgent{
		{Name: "Known", Card: *card("Known"), LastSeen: now.Add(-4 * time.Hour), Instances: []Instance{}},
		{Name: "Old", Card: *card("Old"), LastSeen: now.Add(-3 * time.Hour), Instances: []Instance{}},
		{Name: "Mid", Card: *card("Mid"), LastSeen: now.Add(-2 * time.Hour), Instances: []Instance{}},
		{Name: "Recent", Card: *card("Recent"), LastSeen: now.Add(-time.Hour), Instances: []Instance{}},
	}); err != nil {
		t.Fatal(err)
	}
	log, logs := observed()
	d := newDirectory(t, Options{Bus: embeddedBus(t), KnownAgentsFile: file, MaxAgents: 2, WellKnown: []WellKnownAgent{wellKnown("Known")},
		Now: clk.Now, Logger: log})
	if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{"Known", "Mid", "Recent"}) {
		t.Errorf("lists %v, want [Known Mid Recent]: the well-known agent and the two most recently seen", got)
	}
	w := warnings(logs, "known agents past the limit dropped, least recently seen first")
	if len(w) != 1 || !reflect.DeepEqual(w[0]["agents"], []any{"Old"}) || w[0]["max_agents"] != int64(2) {
		t.Errorf("warnings %v, want one naming Old and max_agents 2", w)
	}
}

func TestCardProblemAcceptsTheBounds(t *testing.T) {
	c := card("Edge")
	c.Description = strings.Repeat("d", MaxDescriptionBytes)
	for i := range MaxCardSkills {
		c.Skills = append(c.Skills, a2a.AgentSkill{ID: fmt.Sprint("s", i), Description: strings.Repeat("s", MaxDescriptionBytes)})
	}
	if reason := cardProblem(DefaultMaxCardBytes, DefaultMaxCardBytes, c); reason != "" {
		t.Errorf("a card at every bound is refused: %s", reason)
	}
}
