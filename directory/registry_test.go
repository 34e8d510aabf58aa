// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"reflect"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

const (
	testStale  = time.Minute
	testForget = time.Hour
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func mustApply(t *testing.T, r *registry, a *a2a.Announcement, now time.Time, wantBefore, wantAfter Status) {
	t.Helper()
	before, after, res := r.apply(a, now)
	if res != accepted || before != wantBefore || after != wantAfter {
		t.Fatalf("apply(%s %s dereg=%v) = %q → %q, outcome %d; want %q → %q, accepted", a.Card.Name, a.InstanceID, a.Deregistering, before, after, res, wantBefore, wantAfter)
	}
}

func instanceIDs(e Entry) []string {
	ids := []string{}
	for _, in := range e.Instances {
		ids = append(ids, in.ID)
	}
	return ids
}

func TestRegistryTracksInstances(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	mustApply(t, r, announcement("Alpha", "i2", at(0), false, "a"), at(1*time.Second), "", StatusOnline)
	mustApply(t, r, announcement("Alpha", "i1", at(1*time.Second), false, "a"), at(2*time.Second), StatusOnline, StatusOnline)
	e, _ := r.get("alpha")
	if got := instanceIDs(e); !reflect.DeepEqual(got, []string{"i1", "i2"}) || !e.LastSeen.Equal(at(2*time.Second)) {
		t.Fatalf("instances = %v, lastSeen %v; want [i1 i2] at +2s", got, e.LastSeen)
	}
	mustApply(t, r, announcement("Alpha", "i1", at(3*time.Second), true, "a"), at(3*time.Second), StatusOnline, StatusOnline)
	mustApply(t, r, announcement("Alpha", "i2", at(4*time.Second), true, "a"), at(4*time.Second), StatusOnline, StatusOffline)
	e, ok := r.get("ALPHA")
	if !ok || len(e.Instances) != 0 || e.Instances == nil || !e.LastSeen.Equal(at(4*time.Second)) || e.LastSeenText() != "2025-06-01T12:00:04Z" {
		t.Fatalf("after both deregistered: %+v (ok %v); want listed offline, no instances, last seen at +4s", e, ok)
	}
}

func TestRegistryIgnoresOutOfOrderAnnouncements(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	mustApply(t, r, announcement("Alpha", "i1", at(2*time.Second), false, "new"), at(2*time.Second), "", StatusOnline)
	if _, _, res := r.apply(announcement("Alpha", "i1", at(1*time.Second), false, "old"), at(3*time.Second)); res != outOfOrder {
		t.Error("an older announcement of the same instance was applied")
	}
	if e, _ := r.get("Alpha"); !e.HasSkill("new") || e.HasSkill("old") {
		t.Errorf("card skills = %v, want the newer card's [new]", e.SkillIDs())
	}
	mustApply(t, r, announcement("Alpha", "i1", at(5*time.Second), true, "new"), at(5*time.Second), StatusOnline, StatusOffline)
	// A periodic announcement sent before the deregistration but delivered after it must not revive the instance.
	if _, _, res := r.apply(announcement("Alpha", "i1", at(4*time.Second), false, "new"), at(6*time.Second)); res != outOfOrder {
		t.Error("an announcement older than the instance's deregistration was applied")
	}
	if e, _ := r.get("Alpha"); e.Status != StatusOffline {
		t.Errorf("status = %s after a late announcement, want offline", e.Status)
	}
	mustApply(t, r, announcement("Alpha", "i1", at(7*time.Second), false, "new"), at(7*time.Second), StatusOffline, StatusOnline)
}

func TestRegistryNewestCardWins(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	mustApply(t, r, announcement("Alpha", "i1", at(2*time.Second), false, "a", "b"), at(2*time.Second), "", StatusOnline)
	// Another instance's older card (a rolling update still announcing the old version) adds the instance, not its card.
	mustApply(t, r, announcement("Alpha", "i2", at(1*time.Second), false, "x"), at(3*time.Second), StatusOnline, StatusOnline)
	e, _ := r.get("Alpha")
	if !reflect.DeepEqual(e.SkillIDs(), []string{"a", "b"}) || len(e.Instances) != 2 {
		t.Fatalf("skills %v, %d instances; want [a b] and 2", e.SkillIDs(), len(e.Instances))
	}
	if got := r.list(Filter{Skill: "x"}); len(got) != 0 {
		t.Errorf("skill x lists %s", describe(got))
	}
	mustApply(t, r, announcement("Alpha", "i2", at(4*time.Second), false, "c"), at(4*time.Second), StatusOnline, StatusOnline)
	if got := r.list(Filter{Skill: "a"}); len(got) != 0 {
		t.Errorf("skill a still lists %s after the card dropped it", describe(got))
	}
	if got := r.list(Filter{Skill: "c"}); len(got) != 1 || got[0].Name != "Alpha" {
		t.Errorf("skill c lists %s, want Alpha", describe(got))
	}
}

func TestRegistryCanonicalSpelling(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	r.seed([]WellKnownAgent{wellKnown("SampleAgent", "echo")})
	mustApply(t, r, announcement("Foo", "i1", at(1*time.Second), false), at(1*time.Second), "", StatusOnline)
	mustApply(t, r, announcement("FOO", "i2", at(2*time.Second), false), at(2*time.Second), StatusOnline, StatusOnline)
	mustApply(t, r, announcement("sampleagent", "i3", at(3*time.Second), false, "echo", "npv"), at(3*time.Second), StatusWellKnown, StatusOnline)
	if e, ok := r.get("foo"); !ok || e.Name != "FOO" || e.Card.Name != "FOO" || len(e.Instances) != 2 {
		t.Errorf("foo = %q (card %q, %d instances), want one agent spelt as last announced, FOO", e.Name, e.Card.Name, len(e.Instances))
	}
	if e, ok := r.get("SAMPLEAGENT"); !ok || e.Name != "SampleAgent" || e.Card.Name != "SampleAgent" || !e.HasSkill("npv") {
		t.Errorf("sampleagent = %q (card %q, skills %v), want the well-known spelling SampleAgent with the announced card", e.Name, e.Card.Name, e.SkillIDs())
	}
	if got := r.names(); !reflect.DeepEqual(got, []string{"FOO", "SampleAgent"}) {
		t.Errorf("names = %v", got)
	}
}

func TestRegistryWellKnownAgents(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	r.seed([]WellKnownAgent{wellKnown("ResearchAgent", "research")})
	e, ok := r.get("researchagent")
	if !ok || e.Status != StatusWellKnown || !e.WellKnown || e.LastSeenText() != NotSeenText || !e.HasSkill("research") || e.Card.Description != "well-known ResearchAgent" {
		t.Fatalf("seeded = %+v, want well-known, not yet seen, with the file's card", e)
	}
	mustApply(t, r, announcement("ResearchAgent", "job1", at(time.Second), false, "research"), at(time.Second), StatusWellKnown, StatusOnline)
	if e, _ := r.get("ResearchAgent"); e.LastSeenText() != "2025-06-01T12:00:01Z" || e.Card.Description != "ResearchAgent does things" {
		t.Errorf("after announcing: lastSeen %q, description %q; want the real time and the announced card", e.LastSeenText(), e.Card.Description)
	}
	mustApply(t, r, announcement("ResearchAgent", "job1", at(2*time.Second), true, "research"), at(2*time.Second), StatusOnline, StatusOffline)
	offline, forgotten := r.sweep(at(10 * testForget))
	if len(offline)+len(forgotten) != 0 {
		t.Errorf("sweep went offline %v, forgot %v; want nothing for a deregistered well-known agent", offline, forgotten)
	}
	if e, ok := r.get("ResearchAgent"); !ok || e.Status != StatusOffline || !e.WellKnown {
		t.Errorf("after deregistering and a day: %+v (listed %v), want listed offline", e, ok)
	}
}

func TestRegistrySweepMarksStaleThenForgets(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	r.seed([]WellKnownAgent{wellKnown("Kept")})
	mustApply(t, r, announcement("Kept", "k1", at(0), false), at(0), StatusWellKnown, StatusOnline)
	mustApply(t, r, announcement("Gone", "g1", at(0), false, "s"), at(0), "", StatusOnline)
	mustApply(t, r, announcement("Gone", "g2", at(30*time.Second), false, "s"), at(30*time.Second), StatusOnline, StatusOnline)

	if off, gone := r.sweep(at(testStale - time.Nanosecond)); len(off)+len(gone) != 0 {
		t.Fatalf("early sweep: offline %v, forgotten %v", off, gone)
	}
	off, gone := r.sweep(at(testStale))
	if !reflect.DeepEqual(off, []string{"Kept"}) || len(gone) != 0 {
		t.Fatalf("sweep at StaleAfter: offline %v, forgotten %v; want [Kept] offline", off, gone)
	}
	if e, _ := r.get("Gone"); e.Status != StatusOnline || !reflect.DeepEqual(instanceIDs(e), []string{"g2"}) {
		t.Fatalf("Gone = %s with %v, want online with its fresh instance g2", e.Status, instanceIDs(e))
	}
	off, gone = r.sweep(at(30*time.Second + testStale))
	if !reflect.DeepEqual(off, []string{"Gone"}) || len(gone) != 0 {
		t.Fatalf("second sweep: offline %v, forgotten %v; want [Gone] offline", off, gone)
	}
	if off, gone := r.sweep(at(30*time.Second + testForget - time.Nanosecond)); len(off)+len(gone) != 0 {
		t.Fatalf("sweep before ForgetAfter: offline %v, forgotten %v", off, gone)
	}
	if _, gone := r.sweep(at(30*time.Second + testForget)); !reflect.DeepEqual(gone, []string{"Gone"}) {
		t.Fatalf("sweep at ForgetAfter forgot %v, want [Gone]", gone)
	}
	if _, ok := r.get("Gone"); ok || len(r.list(Filter{Skill: "s"})) != 0 || len(r.skills) != 0 {
		t.Errorf("forgotten agent still found (lookup %v, skill index %v)", ok, r.skills)
	}
	if got := r.names(); !reflect.DeepEqual(got, []string{"Kept"}) {
		t.Errorf("names = %v, want the well-known agent only", got)
	}
}

func TestRegistryRestoreThenSeed(t *testing.T) {
	r := newRegistry(testStale, testForget, 0)
	r.restore([]storedAgent{
		{Name: "Alive", Card: *card("alive", "s"), LastSeen: at(0), Instances: []Instance{{ID: "a1", LastSeen: at(0)}}},
		{Name: "Idle", Card: *card("Idle"), LastSeen: at(0), Instances: []Instance{}},
		{Name: "researchagent", Card: *card("researchagent", "old"), LastSeen: at(0), Instances: []Instance{{ID: "r1", LastSeen: at(0)}}},
	}, at(time.Second))
	r.seed([]WellKnownAgent{wellKnown("ResearchAgent", "research")})
	want := map[string]Status{"Alive": StatusOnline, "Idle": StatusOffline, "ResearchAgent": StatusWellKnown}
	for _, e := range r.list(Filter{}) {
		if e.Status != want[e.Name] || e.Card.Name != e.Name {
			t.Errorf("%s (card %s) is %s, want %s", e.Name, e.Card.Name, e.Status, want[e.Name])
		}
		delete(want, e.Name)
	}
	if len(want) != 0 {
		t.Errorf("not listed: %v", want)
	}
	if e, _ := r.get("ResearchAgent"); e.HasSkill("old") || !e.HasSkill("research") || len(e.Instances) != 0 || !e.LastSeen.IsZero() {
		t.Errorf("well-known agent = %+v; want the well-known card, not yet seen this session", e)
	}
	snap := r.snapshot()
	if len(snap) != 3 || snap[0].Name != "Alive" || len(snap[0].Instances) != 1 || snap[2].Name != "ResearchAgent" || !snap[2].LastSeen.IsZero() {
		t.Errorf("snapshot = %+v", snap)
	}
}

func TestEntryLastSeenText(t *testing.T) {
	for _, tt := range []struct {
		e    Entry
		want string
	}{
		{Entry{Status: StatusWellKnown, WellKnown: true}, NotSeenText},
		{Entry{Status: StatusOffline, WellKnown: true, LastSeen: at(time.Second)}, "2025-06-01T12:00:01Z"},
		{Entry{Status: StatusOffline}, "never"},
		{Entry{Status: StatusOnline, LastSeen: at(0).In(time.FixedZone("X", 3600))}, "2025-06-01T12:00:00Z"},
	} {
		if got := tt.e.LastSeenText(); got != tt.want {
			t.Errorf("%+v.LastSeenText() = %q, want %q", tt.e, got, tt.want)
		}
	}
}
