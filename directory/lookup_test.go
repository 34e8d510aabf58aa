// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// lookupDirectory is a directory (not running) that knows a well-known
// ResearchAgent and three announced agents.
func lookupDirectory(t *testing.T) *Directory {
	t.Helper()
	d := newDirectory(t, Options{Bus: embeddedBus(t), WellKnown: []WellKnownAgent{wellKnown("ResearchAgent", "research")}})
	now := time.Now()
	for _, a := range []*a2a.Announcement{
		announcement("billing", "b1", now, false, "invoice", "refund"),
		announcement("Calendar", "c1", now, false, "schedule"),
		announcement("BillingAudit", "a1", now, false, "invoice"),
	} {
		if _, _, res := d.reg.apply(a, now); res != accepted {
			t.Fatalf("apply %s", a.Card.Name)
		}
	}
	return d
}

func names(entries []Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

func TestLookupIgnoresCase(t *testing.T) {
	d := lookupDirectory(t)
	for _, q := range []string{"calendar", "CALENDAR", "Calendar", "cAlEnDaR"} {
		if e, ok := d.Lookup(q); !ok || e.Name != "Calendar" || e.Status != StatusOnline || !e.HasSkill("schedule") {
			t.Errorf("Lookup(%q) = %+v, %v; want Calendar online with skill schedule", q, e, ok)
		}
	}
	for _, q := range []string{"Calendars", "", "calendar ", "agent.task.Calendar"} {
		if e, ok := d.Lookup(q); ok {
			t.Errorf("Lookup(%q) = %s, want not found", q, e.Name)
		}
	}
}

func TestListFilters(t *testing.T) {
	d := lookupDirectory(t)
	for _, tt := range []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"billing", "BillingAudit", "Calendar", "ResearchAgent"}},
		{Filter{Skill: "invoice"}, []string{"billing", "BillingAudit"}},
		{Filter{Skill: "Invoice"}, []string{}}, // skill ids are exact
		{Filter{Skill: "research"}, []string{"ResearchAgent"}},
		{Filter{Query: "BILL"}, []string{"billing", "BillingAudit"}},
		{Filter{Query: "skill refund"}, []string{"billing"}},     // a skill's description
		{Filter{Query: "SCHEDULE"}, []string{"Calendar"}},        // a skill's name
		{Filter{Query: "well-known"}, []string{"ResearchAgent"}}, // the description
		{Filter{Skill: "invoice", Query: "audit"}, []string{"BillingAudit"}},
		{Filter{Query: "nothing like it"}, []string{}},
	} {
		if got := names(d.List(tt.f)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("List(%+v) = %v, want %v", tt.f, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	d := lookupDirectory(t)
	for _, tt := range []struct {
		name string
		n    int
		want []string
	}{
		{"Biling", 2, []string{"billing", "BillingAudit"}},
		{"calender", 1, []string{"Calendar"}},
		{"researchagnt", 3, []string{"ResearchAgent", "Calendar", "billing"}},
		{"x", 10, []string{"billing", "Calendar", "BillingAudit", "ResearchAgent"}},
		{"x", 0, nil},
		{strings.Repeat("y", 1<<20), 1, []string{"billing"}},
	} {
		if got := d.Closest(tt.name, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Closest(%.20q, %d) = %v, want %v", tt.name, tt.n, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	d := lookupDirectory(t)
	if got, err := d.Resolve(t.Context(), "BILLING", "refund"); err != nil || got != "billing" {
		t.Errorf("Resolve(BILLING, refund) = %q, %v; want the canonical billing", got, err)
	}
	// A well-known agent that is not running resolves: its task waits in its queue.
	if got, err := d.Resolve(t.Context(), "researchagent", "research"); err != nil || got != "ResearchAgent" {
		t.Errorf("Resolve(researchagent, research) = %q, %v", got, err)
	}
	for _, tt := range []struct {
		agent, skill string
		code         a2a.ErrorCode
		msg          string
	}{
		{"Calender", "schedule", a2a.CodeAgentNotFound, `AGENT_NOT_FOUND: agent "Calender" is not in the directory; closest known agents: Calendar, billing, BillingAudit`},
		{"Calendar", "invoice", a2a.CodeSkillNotSupported, `SKILL_NOT_SUPPORTED: agent "Calendar" has no skill "invoice"; its skills: schedule`},
		{"billing", "", a2a.CodeSkillNotSupported, `SKILL_NOT_SUPPORTED: agent "billing" has no skill ""; its skills: invoice, refund`},
	} {
		got, err := d.Resolve(t.Context(), tt.agent, tt.skill)
		var ae *a2a.Error
		if !errors.As(err, &ae) || ae.Code != tt.code || err.Error() != tt.msg || got != "" {
			t.Errorf("Resolve(%q, %q) = %q, %v;\nwant %s", tt.agent, tt.skill, got, err, tt.msg)
		}
	}
	empty := newDirectory(t, Options{Bus: embeddedBus(t)})
	if _, err := empty.Resolve(t.Context(), "Any", "x"); err == nil || err.Error() != `AGENT_NOT_FOUND: agent "Any" is not in the directory; no agents are known` {
		t.Errorf("Resolve on an empty directory = %v", err)
	}
	agent := newDirectory(t, Options{Bus: embeddedBus(t)})
	agent.reg.apply(announcement("Bare", "i", time.Now(), false), time.Now())
	if _, err := agent.Resolve(t.Context(), "Bare", "x"); err == nil || !strings.HasSuffix(err.Error(), `has no skill "x"; it has none`) {
		t.Errorf("Resolve of an agent without skills = %v", err)
	}
}

// A PatientResolver's wait for an unknown agent ends with the caller's
// context, however long its Wait: the look-up is bounded by the invoke.
func TestPatientResolverEndsWithTheContext(t *testing.T) {
	d := newDirectory(t, Options{Bus: embeddedBus(t)})
	r := PatientResolver{Directory: d, Wait: time.Hour}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := r.Resolve(ctx, "Nobody", "x")
		done <- err
	}()
	cancel()
	if err := <-done; a2a.CodeOf(err) != a2a.CodeAgentNotFound {
		t.Fatalf("Resolve after its context ended = %v, want AGENT_NOT_FOUND", err)
	}
}

// The listing of every agent is shared until the next change: it follows
// every change (a new agent, an announcement, a forgotten agent), and a
// listing already returned keeps what it listed.
func TestListAllFollowsChanges(t *testing.T) {
	clk := newClock()
	d := newDirectory(t, Options{Bus: embeddedBus(t), Now: clk.Now, StaleAfter: testStale, ForgetAfter: testForget})
	apply := func(name string, now time.Time) {
		t.Helper()
		if _, _, res := d.reg.apply(announcement(name, "i1", now, false, "s"), now); res != accepted {
			t.Fatalf("apply %s: outcome %d", name, res)
		}
	}
	apply("Bravo", at(0))
	first := d.List(Filter{})
	if got := names(first); !reflect.DeepEqual(got, []string{"Bravo"}) {
		t.Fatalf("List = %v, want [Bravo]", got)
	}
	_ = append(first, Entry{Name: "Appended"}) // a caller's append does not reach the directory's listing
	if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{"Bravo"}) {
		t.Fatalf("List after a caller appended to a listing = %v, want [Bravo]", got)
	}

	apply("Alpha", at(time.Second))
	if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{"Alpha", "Bravo"}) {
		t.Fatalf("List after a new agent = %v, want [Alpha Bravo]", got)
	}
	apply("Bravo", at(testForget))
	all := d.List(Filter{})
	if got := names(all); !reflect.DeepEqual(got, []string{"Alpha", "Bravo"}) || !all[1].LastSeen.Equal(at(testForget)) {
		t.Fatalf("List after an announcement = %v, Bravo last seen %v; want [Alpha Bravo], Bravo at +ForgetAfter", got, all[1].LastSeen)
	}
	if len(first) != 1 || !first[0].LastSeen.Equal(at(0)) {
		t.Fatalf("the first listing changed: %v, last seen %v; want [Bravo] seen at +0s", names(first), first[0].LastSeen)
	}

	d.reg.sweep(at(testForget + testStale - time.Nanosecond)) // Alpha is forgotten, Bravo still online
	if all = d.List(Filter{}); len(all) != 1 || all[0].Name != "Bravo" || all[0].Status != StatusOnline {
		t.Fatalf("List after Alpha was forgotten = %s, want Bravo online", describe(all))
	}
	d.reg.sweep(at(testForget + testStale)) // Bravo's instance is stale: offline, not yet forgotten
	if all = d.List(Filter{}); len(all) != 1 || all[0].Status != StatusOffline {
		t.Fatalf("List after Bravo went stale = %s, want Bravo offline", describe(all))
	}
}

// A skill filter lists the same agents, in key order, whether the agents
// with the skill are few (sorted from the index) or many (scanned).
func TestListSkillFewOrMany(t *testing.T) {
	d := newDirectory(t, Options{Bus: embeddedBus(t)})
	now := time.Now()
	for i := range 200 {
		skills := []string{"common"}
		if i%50 == 7 {
			skills = append(skills, "rare")
		}
		name := fmt.Sprintf("Agent%03d", 199-i) // announced out of key order
		if i%2 == 0 {
			name = strings.ToLower(name)
		}
		if _, _, res := d.reg.apply(announcement(name, "i1", now, false, skills...), now); res != accepted {
			t.Fatalf("apply %s: outcome %d", name, res)
		}
	}
	all := d.List(Filter{})
	for _, skill := range []string{"common", "rare"} {
		var want []string
		for _, e := range all {
			if e.HasSkill(skill) {
				want = append(want, e.Name)
			}
		}
		if got := names(d.List(Filter{Skill: skill})); !reflect.DeepEqual(got, want) {
			t.Errorf("List(skill %s) = %v, want %v", skill, got, want)
		}
	}
	if !slices.IsSortedFunc(all, func(a, b Entry) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) }) {
		t.Errorf("List = %v, not in name order ignoring case", names(all))
	}
}

// Lookup folds case as strings.ToLower does, for any input.
func TestLookupFoldsLikeToLower(t *testing.T) {
	d := lookupDirectory(t)
	now := time.Now()
	if _, _, res := d.reg.apply(announcement("Kilo", "k1", now, false, "k"), now); res != accepted {
		t.Fatalf("apply Kilo: outcome %d", res)
	}
	for q, want := range map[string]bool{
		"\u212Ailo":                       true, // the Kelvin sign lowers to k
		"KILO":                            true,
		"kIlO":                            true,
		"kilo\u0130":                      false, // a dotted capital I lowers to i and a combining dot
		"kilo" + strings.Repeat("o", 100): false,
	} {
		if _, ok := d.Lookup(q); ok != want {
			t.Errorf("Lookup(%q) found %v, want %v", q, ok, want)
		}
	}
}
