// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// The scenarios, each on the embedded bus and on the real RabbitMQ.
// The tests that use a real world run in parallel (t.Parallel): each world
// is private (its exchange, agent names and key prefix), and most of a real
// world's time goes to its clean-up's walk of the Redis keyspace, which
// they then share.

func TestAnnouncedAgentsAreListed(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		alphaName, betaName, researchName := w.N("Alpha"), w.N("Beta"), w.N("Research")
		d := newDirectory(t, Options{Bus: w.Connect(t), Exchange: w.Exchange, WellKnown: []WellKnownAgent{wellKnown(researchName, "research")}})
		start(t, d)
		agents := w.Connect(t)
		alpha, beta := newFakeAgent(agents, alphaName, "a1", "a2"), newFakeAgent(agents, betaName, "b1")
		alpha.mustAnnounce(t, false)
		beta.mustAnnounce(t, false)
		waitFor(t, d, "both agents online", func() bool {
			return hasStatus(d, alphaName, StatusOnline)() && hasStatus(d, betaName, StatusOnline)()
		})
		if e, _ := d.Lookup(alphaName); !reflect.DeepEqual(e.SkillIDs(), []string{"a1", "a2"}) || !reflect.DeepEqual(instanceIDs(e), []string{alpha.id}) {
			t.Errorf("%s: skills %v, instances %v", alphaName, e.SkillIDs(), instanceIDs(e))
		}
		if got := names(d.List(Filter{Skill: "b1"})); !reflect.DeepEqual(got, []string{betaName}) {
			t.Errorf("skill b1 lists %v, want [%s]", got, betaName)
		}

		beta.mustAnnounce(t, true) // graceful stop
		waitFor(t, d, betaName+" deregistered", hasStatus(d, betaName, StatusOffline))
		if e, _ := d.Lookup(betaName); len(e.Instances) != 0 || e.LastSeen.IsZero() {
			t.Errorf("deregistered %s: %d instances, lastSeen %v", betaName, len(e.Instances), e.LastSeen)
		}
		if !hasStatus(d, alphaName, StatusOnline)() {
			t.Errorf("%s went offline with %s", alphaName, betaName)
		}

		// A well-known agent is listed before it runs, and still after it deregisters.
		if e, ok := d.Lookup(researchName); !ok || e.LastSeenText() != NotSeenText {
			t.Fatalf("well-known %s = %+v, %v; want listed as not yet seen", researchName, e, ok)
		}
		research := newFakeAgent(agents, researchName, "research")
		research.mustAnnounce(t, false)
		waitFor(t, d, researchName+" online", hasStatus(d, researchName, StatusOnline))
		research.mustAnnounce(t, true)
		waitFor(t, d, researchName+" offline", hasStatus(d, researchName, StatusOffline))
		if e, ok := d.Lookup(researchName); !ok || !e.WellKnown || e.LastSeenText() == NotSeenText {
			t.Errorf("deregistered well-known %s = %+v, %v; want still listed, seen", researchName, e, ok)
		}
		if got, err := d.Resolve(t.Context(), researchName, "research"); err != nil || got != researchName {
			t.Errorf("Resolve(%s) = %q, %v", researchName, got, err)
		}
	})
}

func TestFirstBootSeedsWellKnownAgents(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		file := filepath.Join(t.TempDir(), "known-agents.json") // does not exist: first boot
		research, sample := w.N("ResearchAgent"), w.N("SampleAgent")
		d := newDirectory(t, Options{Bus: w.Connect(t), KnownAgentsFile: file,
			WellKnown: []WellKnownAgent{wellKnown(research, "research"), wellKnown(sample, "echo")}})
		check := func(when string) {
			t.Helper()
			got := d.List(Filter{})
			if len(got) != 2 {
				t.Fatalf("%s: lists %d agents, want the 2 well-known:\n%s", when, len(got), describe(got))
			}
			for _, e := range got {
				if e.Status != StatusWellKnown || e.LastSeenText() != NotSeenText || !e.WellKnown {
					t.Errorf("%s: %s is %s, %q; want well-known, not yet seen", when, e.Name, e.Status, e.LastSeenText())
				}
			}
		}
		check("before Run")
		start(t, d)
		if err := d.Query(context.Background()); err != nil {
			t.Fatal(err)
		}
		check("running")
	})
}

func TestRestartRestoresKnownAgents(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		file := filepath.Join(t.TempDir(), "known-agents.json")
		alphaName, betaName, researchName := w.N("Alpha"), w.N("Beta"), w.N("Research")
		wk := []WellKnownAgent{wellKnown(researchName, "research")}
		agents := w.Connect(t)
		alpha, beta, research := newFakeAgent(agents, alphaName, "a"), newFakeAgent(agents, betaName, "b"), newFakeAgent(agents, researchName, "research", "extra")

		first := newDirectory(t, Options{Bus: w.Connect(t), KnownAgentsFile: file, WellKnown: wk, PersistDebounce: time.Hour})
		errc := make(chan error, 1)
		go func() { errc <- first.Run(context.Background()) }()
		alpha.mustAnnounce(t, false)
		beta.mustAnnounce(t, false)
		beta.mustAnnounce(t, true)
		research.mustAnnounce(t, false)
		waitFor(t, first, "all announced", func() bool {
			return hasStatus(first, alphaName, StatusOnline)() && hasStatus(first, betaName, StatusOffline)() && hasStatus(first, researchName, StatusOnline)()
		})
		if err := first.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := <-errc; err != nil {
			t.Fatalf("Run: %v", err)
		}

		second := newDirectory(t, Options{Bus: w.Connect(t), KnownAgentsFile: file, WellKnown: wk})
		check := func(when string) {
			t.Helper()
			want := map[string]Status{alphaName: StatusOnline, betaName: StatusOffline, researchName: StatusWellKnown}
			got := second.List(Filter{})
			for _, e := range got {
				if e.Status != want[e.Name] {
					t.Errorf("%s: %s is %s, want %s", when, e.Name, e.Status, want[e.Name])
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s: lists\n%swant %v", when, describe(got), want)
			}
			if e, _ := second.Lookup(alphaName); !e.HasSkill("a") || !reflect.DeepEqual(instanceIDs(e), []string{alpha.id}) {
				t.Errorf("%s: restored %s has skills %v and instances %v", when, alphaName, e.SkillIDs(), instanceIDs(e))
			}
			if e, _ := second.Lookup(researchName); e.HasSkill("extra") {
				t.Errorf("%s: well-known %s has the last session's card, want the well-known file's", when, researchName)
			}
		}
		check("before any announcement")
		start(t, second) // the fake agents do not answer the discovery query
		if err := second.Query(context.Background()); err != nil {
			t.Fatal(err)
		}
		check("running")
	})
}

func TestStaleAgentsGoOfflineThenAreForgotten(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		alphaName, researchName := w.N("Alpha"), w.N("Research")
		d := newDirectory(t, Options{Bus: w.Connect(t), WellKnown: []WellKnownAgent{wellKnown(researchName)},
			StaleAfter: 300 * time.Millisecond, ForgetAfter: 600 * time.Millisecond, SweepInterval: 20 * time.Millisecond})
		start(t, d)
		agents := w.Connect(t)
		newFakeAgent(agents, researchName).mustAnnounce(t, false) // first, so it is due to be forgotten before Alpha
		newFakeAgent(agents, alphaName).mustAnnounce(t, false)
		waitFor(t, d, "both online", func() bool {
			return hasStatus(d, alphaName, StatusOnline)() && hasStatus(d, researchName, StatusOnline)()
		})
		waitFor(t, d, "both offline", func() bool {
			return hasStatus(d, alphaName, StatusOffline)() && hasStatus(d, researchName, StatusOffline)()
		})
		waitFor(t, d, alphaName+" forgotten", func() bool { _, ok := d.Lookup(alphaName); return !ok })
		if !hasStatus(d, researchName, StatusOffline)() {
			t.Errorf("well-known %s was forgotten", researchName)
		}
	})
}

func TestDiscoveryQueryBringsRunningAgents(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		agents := w.Connect(t)
		// Running agents that announce only when asked: the directory lists
		// them only if its start-up query reaches them.
		alpha, beta := newFakeAgent(agents, w.N("Alpha"), "a"), newFakeAgent(agents, w.N("Beta"), "b")
		alpha.answerQueries(t)
		beta.answerQueries(t)
		d := newDirectory(t, Options{Bus: w.Connect(t)})
		began := time.Now()
		start(t, d)
		waitFor(t, d, "the running agents' cards", func() bool {
			return hasStatus(d, alpha.card.Name, StatusOnline)() && hasStatus(d, beta.card.Name, StatusOnline)()
		})
		t.Logf("%s: start-up query answered by both agents in %v", w.Kind, time.Since(began))

		gamma := newFakeAgent(agents, w.N("Gamma"), "g")
		gamma.answerQueries(t)
		began = time.Now()
		if err := d.Query(context.Background()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, d, "the new agent's card", hasStatus(d, gamma.card.Name, StatusOnline))
		t.Logf("%s: Query answered in %v", w.Kind, time.Since(began))
	})
}

func TestBadAnnouncementsAreDropped(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		d := newDirectory(t, Options{Bus: w.Connect(t)})
		start(t, d)
		pub := w.Connect(t)
		query, err := a2a.Codec{}.Encode(&a2a.DiscoveryQuery{Time: time.Now()}, a2a.Trace{})
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range []a2a.Envelope{
			{Kind: a2a.KindAgentCard, MessageID: "garbage", ContentType: a2a.ContentTypeJSON, Body: []byte("{not json")},
			{Kind: a2a.KindAgentCard, MessageID: "bad-name", ContentType: a2a.ContentTypeJSON,
				Body: []byte(`{"card": {"name": "no.dots"}, "instanceId": "i", "time": "2025-01-01T00:00:00Z"}`)},
			{Kind: "bogus.kind", MessageID: "bogus", Body: []byte("{}")},
			query, // a valid message of the wrong kind
		} {
			m := bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyAnnounce}
			publishRouted(t, func(ctx context.Context) error { return pub.Publish(ctx, m) })
		}
		alpha := newFakeAgent(pub, w.N("Alpha"), "a")
		alpha.mustAnnounce(t, false)
		waitFor(t, d, "the valid announcement", hasStatus(d, alpha.card.Name, StatusOnline))
		if got := names(d.List(Filter{})); !reflect.DeepEqual(got, []string{alpha.card.Name}) {
			t.Errorf("lists %v, want only %s", got, alpha.card.Name)
		}
	})
}

// TestForgedAnnouncementsAreRejected: with an announce secret, only cards
// signed with it are listed; unsigned and wrongly signed ones are dropped.
func TestForgedAnnouncementsAreRejected(t *testing.T) {
	t.Parallel()
	testworld.EachBus(t, func(t *testing.T, w *testworld.World) {
		secret := []byte("the-shared-announce-secret")
		d := newDirectory(t, Options{Bus: w.Connect(t), AnnounceSecret: secret})
		start(t, d)
		unsigned := newFakeAgent(w.Connect(t), w.N("Unsigned"), "echo")
		forged := newFakeAgent(w.Connect(t), w.N("Forged"), "echo")
		forged.secret = []byte("a-guessed-wrong-secret")
		genuine := newFakeAgent(w.Connect(t), w.N("Genuine"), "echo")
		genuine.secret = secret
		unsigned.mustAnnounce(t, false)
		forged.mustAnnounce(t, false)
		genuine.mustAnnounce(t, false)
		waitFor(t, d, "the signed agent listed", hasStatus(d, genuine.card.Name, StatusOnline))
		for _, name := range []string{unsigned.card.Name, forged.card.Name} {
			if _, ok := d.Lookup(name); ok {
				t.Errorf("%s was listed without a valid signature", name)
			}
		}
	})
}
