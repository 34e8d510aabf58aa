// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// fuzzFile is the file name the parse functions are given; errors must name it.
const fuzzFile = "fuzz.json"

// repoWellKnown returns the repository's well-known-agents.json.
func repoWellKnown(f *testing.F) []byte {
	data, err := os.ReadFile("../well-known-agents.json")
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzParseWellKnown feeds arbitrary bytes to the well-known file parser
// (what LoadWellKnown reads). A refusal is, leaf by leaf, a *WellKnownError
// naming the file and wrapping ErrInvalidWellKnown, with a reason and a
// position that lies in the file. Accepted agents pass the checks New makes
// on agents built in code and are all listed by a new directory, and
// writing them back as JSON gives a file that parses to the same agents.
func FuzzParseWellKnown(f *testing.F) {
	f.Add(repoWellKnown(f))
	for _, s := range []string{
		`[]`, ` [ ] `, "  \n", `{"agentName": "A"}`, "\n null", "[\n  {\"agentName\": \"A\",}\n]", "[\n  {\"agentName\": \"A\"",
		`[{"agentName": "Bad.Name", "skills": []}]`,
		"[\n {\"agentName\": \"SampleAgent\"},\n {\"agentName\": \"Other\"},\n {\"agentName\": \"sampleagent\"}\n]",
		`[{"agentName": "A", "skills": [{"id": "echo"}, {"id": "x"}, {"id": "echo"}]}]`,
		`[{"agentName": "A", "skills": [{"id": "s", "tags": [1]}]}]`,
		`[{"agentName": "A"}, "B"]`,
		`[{"agentName": "A", "skills": [{"id": "npv", "tags": []}], "inputSchemas": {"npv": {"type": "object", "required": ["rate"], "properties": {"rate": {"type": "number"}}}}}]`,
		`[{"agentName": "A", "skills": [{"id": "npv"}], "inputSchemas": {"other": {"type": "object"}, "npv": {"type": 7}}}]`,
	} {
		f.Add([]byte(s))
	}
	b := inproc.New(inproc.Options{})
	f.Cleanup(func() { _ = b.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		agents, err := parseWellKnown(fuzzFile, data)
		if err != nil {
			if agents != nil {
				t.Fatalf("agents %+v returned with error %v", agents, err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range testenv.Leaves(err) {
				var we *WellKnownError
				if !errors.As(e, &we) || !errors.Is(e, ErrInvalidWellKnown) {
					t.Fatalf("error %v is not a *WellKnownError wrapping ErrInvalidWellKnown", e)
				}
				if we.File != fuzzFile || we.Reason == "" || we.Line < 0 || we.Line > lines || we.Column < 0 || we.Column > len(data)+1 {
					t.Fatalf("error %#v does not name the file, a reason and a position in it", we)
				}
			}
			return
		}
		if _, err := checkWellKnown(agents); err != nil {
			t.Fatalf("parseWellKnown accepted agents New refuses: %v", err)
		}
		d, err := New(Options{Bus: b, WellKnown: agents, InstanceID: "fuzz"})
		if err != nil {
			t.Fatalf("New with the parsed agents: %v", err)
		}
		if got, want := len(d.List(Filter{})), len(agents); got != want {
			t.Fatalf("a new directory lists %d agents, the file has %d", got, want)
		}
		for _, a := range agents {
			if e, ok := d.Lookup(a.AgentName); !ok || e.Name != a.AgentName || e.Status != StatusWellKnown {
				t.Fatalf("well-known agent %q is listed as %+v (found %v)", a.AgentName, e, ok)
			}
		}
		b1, err := json.Marshal(agents)
		if err != nil {
			t.Fatalf("marshal parsed agents: %v", err)
		}
		again, err := parseWellKnown(fuzzFile, b1)
		if err != nil {
			t.Fatalf("the parsed agents written back do not parse: %v\n%s", err, b1)
		}
		if b2, _ := json.Marshal(again); !bytes.Equal(b1, b2) {
			t.Fatalf("round trip not stable:\n%s\n%s", b1, b2)
		}
	})
}

// FuzzParseKnownAgents feeds arbitrary bytes to the known-agents file parser
// (what New restores from). A refusal is, leaf by leaf, a *KnownAgentsError
// naming the file and wrapping ErrInvalidKnownAgents. Accepted agents,
// restored into a registry as New does, give a snapshot that saves (as
// saveKnownAgents writes it) to a file that parses again, to the same
// snapshot: a directory that started from a file can always restart from
// the file it writes.
func FuzzParseKnownAgents(f *testing.F) {
	const cardA = `{"name": "A", "description": "", "version": "1", "skills": [], "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "supportedInterfaces": []}`
	for _, s := range []string{
		`{"version": 1, "agents": []}`,
		`{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "lastSeen": "2025-01-01T00:00:00Z", "instances": [{"id": "i-1", "lastSeen": "2025-01-01T00:00:00Z"}]}]}`,
		`{"version": 1, "agents": [{"name": "A", "card": {"name": "A", "skills": [{"id": "npv", "name": "NPV", "tags": []}]}, "inputSchemas": {"npv": {"type": "object"}}}]}`,
		`{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `}, {"name": "a", "card": ` + cardA + `}]}`,
		`{"version": 1, "agents": [{"name": "A", "card": {"name": "A", "skills": [{"id": "x"}, {"id": "x"}]}}]}`,
		`{"version": 1, "agents": [{"name": "A", "card": ` + cardA + `, "instances": [{"id": "i"}]}]}`,
		"{\n  \"version\": 1,,\n}", `{"version": 1, "agents": [`, `[]`, "{\"version\": 1, \"agents\": []}\n{}", `{"agents": []}`, `{"version": 2, "agents": []}`,
	} {
		f.Add([]byte(s))
	}
	f.Add(savedFile(f, storedFromWellKnown(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		stored, err := parseKnownAgents(fuzzFile, data)
		if err != nil {
			if stored != nil {
				t.Fatalf("agents %+v returned with error %v", stored, err)
			}
			for _, e := range testenv.Leaves(err) {
				var ke *KnownAgentsError
				if !errors.As(e, &ke) || !errors.Is(e, ErrInvalidKnownAgents) || ke.File != fuzzFile || ke.Reason == "" {
					t.Fatalf("error %v is not a *KnownAgentsError naming the file and a reason", e)
				}
			}
			return
		}
		r := newRegistry(DefaultStaleAfter, DefaultForgetAfter, 0)
		r.restore(stored, time.Now())
		if r.len() != len(stored) {
			t.Fatalf("restored %d agents of %d", r.len(), len(stored))
		}
		snap := r.snapshot()
		b1 := savedFile(t, snap)
		again, err := parseKnownAgents(fuzzFile, b1)
		if err != nil {
			t.Fatalf("the file a directory writes after restoring this one does not load: %v\n%s", err, b1)
		}
		r2 := newRegistry(DefaultStaleAfter, DefaultForgetAfter, 0)
		r2.restore(again, time.Now())
		if b2 := savedFile(t, r2.snapshot()); !bytes.Equal(b1, b2) {
			t.Fatalf("save and restore not stable:\n%s\n%s", b1, b2)
		}
	})
}

// savedFile is the content saveKnownAgents writes for agents.
func savedFile(t testing.TB, agents []storedAgent) []byte {
	t.Helper()
	if agents == nil {
		agents = []storedAgent{}
	}
	data, err := json.MarshalIndent(knownAgentsFile{Version: knownAgentsVersion, Agents: agents}, "", "  ")
	if err != nil {
		t.Fatalf("encode known agents: %v", err)
	}
	return append(data, '\n')
}

// storedFromWellKnown is the repository's well-known agents as a directory
// that has seen them persists them.
func storedFromWellKnown(f *testing.F) []storedAgent {
	agents, err := parseWellKnown(fuzzFile, repoWellKnown(f))
	if err != nil {
		f.Fatal(err)
	}
	r := newRegistry(DefaultStaleAfter, DefaultForgetAfter, 0)
	r.seed(agents)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, a := range agents {
		r.apply(&a2a.Announcement{Card: a.Card(), InstanceID: "i-" + a.AgentName, Time: at, InputSchemas: a.InputSchemas}, at)
	}
	return r.snapshot()
}

// Announcement delivery modes of FuzzAnnouncement: how the envelope is signed.
const (
	signedRight  = iota // signed with the directory's secret, timestamped now
	unsigned            // no signature header
	signedWrong         // signed with another secret
	signedStale         // signed with the right secret, timestamped too long ago
	signingModes        // the number of modes
)

// FuzzAnnouncement feeds arbitrary deliveries of the announce queue to a
// directory seeded with the repository's well-known agents, as the bus
// delivers them: the message kind, id, body and how it is signed. The
// directory never panics and never asks for a requeue. A delivery that is
// not a correctly signed, recent, valid announcement leaves the listing
// unchanged. An accepted one lists the agent under its canonical spelling
// (the well-known file's for a well-known agent) with the card's skills
// and its instance live unless deregistering; and the state the directory
// then persists saves to a known-agents file it can restart from.
func FuzzAnnouncement(f *testing.F) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	wk, err := parseWellKnown(fuzzFile, repoWellKnown(f))
	if err != nil {
		f.Fatal(err)
	}
	secret := []byte("fuzz-announce-secret-0123456789")
	codec := a2a.Codec{Now: func() time.Time { return now }, NewID: func() string { return "m-1" }}
	seed := func(p a2a.Payload) {
		env, err := codec.Encode(p, a2a.Trace{})
		if err != nil {
			f.Fatal(err)
		}
		for mode := range uint8(signingModes) {
			f.Add(mode, string(env.Kind), env.MessageID, env.Body)
		}
	}
	for _, w := range wk {
		seed(&a2a.Announcement{Card: w.Card(), InstanceID: "i-1", Time: now, InputSchemas: w.InputSchemas})
	}
	research := wk[0].Card()
	research.Name = strings.ToLower(research.Name)
	seed(&a2a.Announcement{Card: research, InstanceID: "job-7", Time: now, Deregistering: true})
	seed(&a2a.Announcement{Card: card("NewAgent", "npv", "echo"), InstanceID: "pod-1", Time: now,
		InputSchemas: map[string]json.RawMessage{"npv": json.RawMessage(`{"type":"object","properties":{"rate":{"type":"number"}}}`),
			"echo": json.RawMessage(`{"type":"nonsense"}`)}})
	seed(&a2a.DiscoveryQuery{From: "Primary", Time: now})
	f.Add(uint8(signedRight), "agent.card", "m-2", []byte(`{"card":{"name":"A"},"instanceId":"i","time":"2026-11-22T12:00:00Z"}`))
	f.Add(uint8(signedRight), "agent.card", "m-3", []byte(`{"card":null,"instanceId":"i","time":"2026-11-22T12:00:00Z"}`))
	f.Add(uint8(signedRight), "agent.card", "m-4", []byte(`{"card":{"name":"A","skills":[{"id":"a"},{"id":"a"}]},"instanceId":"i","time":"2026-11-22T12:00:00Z"}`))
	f.Add(uint8(signedRight), "task.bogus", "m-5", []byte(`{}`))

	b := inproc.New(inproc.Options{})
	f.Cleanup(func() { _ = b.Close() })
	f.Fuzz(func(t *testing.T, mode uint8, kind, id string, body []byte) {
		d, err := New(Options{Bus: b, WellKnown: wk, InstanceID: "fuzz", AnnounceSecret: secret, Now: func() time.Time { return now },
			Codec: a2a.Codec{MaxBodyBytes: 64 << 10}})
		if err != nil {
			t.Fatal(err)
		}
		env := a2a.Envelope{Kind: a2a.Kind(kind), MessageID: id, ContentType: a2a.ContentTypeJSON, Timestamp: now, Body: body}
		switch mode % signingModes {
		case signedRight:
			a2a.Sign(&env, secret)
		case signedWrong:
			a2a.Sign(&env, []byte("another-secret-0123456789abcdef"))
		case signedStale:
			env.Timestamp = now.Add(-a2a.MaxSignatureAge - time.Second)
			a2a.Sign(&env, secret)
		}
		before := d.List(Filter{})
		dl := bus.NewDelivery(bus.Message{Envelope: env, RoutingKey: a2a.RoutingKeyAnnounce}, "q", 1, 1, nil)
		if err := d.handle(context.Background(), dl); err != nil {
			t.Fatalf("handle returned %v: a bad announcement must be dropped, not requeued", err)
		}
		after := d.List(Filter{})

		var a *a2a.Announcement
		if mode%signingModes == signedRight {
			if p, err := d.opts.Codec.Decode(env); err == nil {
				a, _ = p.(*a2a.Announcement)
			}
		}
		if a != nil && a.Card != nil && (cardProblem(len(env.Body), d.opts.MaxCardBytes, a.Card) != "" ||
			timeProblem(a.Time, env.Timestamp, now, d.opts.MaxClockSkew) != "") {
			a = nil // past the directory's bounds: dropped like a refused one
		}
		if a == nil {
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("a refused delivery (mode %d) changed the directory:\nbefore\n%s\nafter\n%s", mode%signingModes, describe(before), describe(after))
			}
			return
		}
		checkAccepted(t, d, wk, a)
		snap := d.reg.snapshot()
		saved := savedFile(t, snap)
		stored, err := parseKnownAgents(fuzzFile, saved)
		if err != nil {
			t.Fatalf("after announcement %s the directory persists a file it cannot restart from: %v\n%s", body, err, saved)
		}
		r := newRegistry(DefaultStaleAfter, DefaultForgetAfter, 0)
		r.restore(stored, time.Now())
		if !bytes.Equal(savedFile(t, r.snapshot()), saved) {
			t.Fatalf("the restored directory does not persist what it was restored from:\n%s", saved)
		}
	})
}

// checkAccepted checks d lists the agent of the accepted announcement a as a says.
func checkAccepted(t *testing.T, d *Directory, wk []WellKnownAgent, a *a2a.Announcement) {
	t.Helper()
	e, ok := d.Lookup(a.Card.Name)
	if !ok {
		t.Fatalf("accepted announcement of %q is not listed:\n%s", a.Card.Name, describe(d.List(Filter{})))
	}
	name := a.Card.Name
	for _, w := range wk {
		if a2a.SameAgent(w.AgentName, a.Card.Name) {
			name = w.AgentName
		}
	}
	if e.Name != name || e.Card.Name != name {
		t.Fatalf("announced %q is listed as %q (card %q), want %q", a.Card.Name, e.Name, e.Card.Name, name)
	}
	var ids []string
	for _, s := range a.Card.Skills {
		ids = append(ids, s.ID)
	}
	// A card dated before the seeded card's zero time is older than it, and
	// does not replace it.
	older := e.WellKnown && a.Time.Before(time.Time{})
	if got := e.SkillIDs(); !older && !slices.Equal(got, ids) && !(len(got) == 0 && len(ids) == 0) {
		t.Fatalf("announced %q with skills %v, listed with %v", a.Card.Name, ids, got)
	}
	live := slices.ContainsFunc(e.Instances, func(in Instance) bool { return in.ID == a.InstanceID })
	if live == a.Deregistering {
		t.Fatalf("instance %q live=%v after an announcement with deregistering=%v", a.InstanceID, live, a.Deregistering)
	}
	want := StatusOnline
	if a.Deregistering {
		want = StatusOffline
	}
	if e.Status != want {
		t.Fatalf("agent %q is %s after the announcement, want %s", name, e.Status, want)
	}
	for id := range e.InputSchemas {
		if !e.HasSkill(id) {
			t.Fatalf("agent %q lists an input schema for %q, not one of its skills %v", name, id, e.SkillIDs())
		}
	}
}
