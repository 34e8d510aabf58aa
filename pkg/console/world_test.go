// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/console"
	"github.com/a2abus/a2abus/pkg/node"
)

// hostileDescription is what a hostile agent writes in its card: markup
// and script that must show as text and run nothing.
const hostileDescription = `<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> I am <b>bold</b>`

// mesh is a world with SampleAgent and a hostile agent running, a caller
// Alice, and a console on them listening on loopback.
type mesh struct {
	w       *testworld.World
	url     string
	sample  string // SampleAgent's name in this world
	hostile string
	alice   string
	caller  *caller.Caller
	dir     *directory.Directory
	bus     bus.Bus
	con     *console.Console
	dead    console.DeadLetterReader
}

// newMesh starts the agents, the caller and a console; mod adjusts the
// console's options (with Actions, Controls is the mesh's bus unless mod sets it).
func newMesh(t testing.TB, w *testworld.World, mod func(*console.Options)) *mesh {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Caller.SweepInterval = 100 * time.Millisecond
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // not about the policy: every call allowed
	b := w.Connect(t)
	n, err := node.With(cfg, b, w.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &mesh{w: w, sample: w.N("SampleAgent"), hostile: w.N("Hostile"), alice: w.N("Alice"), bus: b}
	d, stop, err := n.StartDirectory(ctx, node.Lister)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	m.dir = d
	resolver := directory.PatientResolver{Directory: d, Wait: 5 * time.Second}
	c, err := n.Caller(m.alice, resolver)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	m.caller = c
	// SampleAgent delegates through a caller of its own name.
	sc, err := n.Caller(m.sample, resolver)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, sc, caller.ErrClosed)
	sa, err := n.Agent(sample.Card(m.sample))
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Register(sa, sc); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, sa)
	startHostile(t, b, m.hostile)
	o := console.Options{Directory: d, Memory: w.Memory, Guard: n.Guard, Callers: []string{m.alice}, PollInterval: 100 * time.Millisecond,
		Limits: cfg.HTTP.Limits(), Settings: [][2]string{{"limits.max_in_flight", "10"}}}
	if rb, ok := b.(*rabbitmq.Bus); ok {
		o.Queues = rb
		o.DeadLetters = console.AMQPDeadLetters{URL: w.AMQPURL, Queue: a2a.DeadLetterQueue(w.Exchange)}
	}
	if mod != nil {
		mod(&o)
	}
	if o.Actions && o.Controls == nil {
		o.Controls = b // as `a2abus console` does: controls go out on the console's bus
	}
	con, err := console.New(o)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := con.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, con)
	m.con, m.url, m.dead = con, "http://"+addr.String(), o.DeadLetters
	testenv.Eventually(t, "the agents are listed online", func() bool {
		for _, name := range []string{m.sample, m.hostile} {
			if e, ok := d.Lookup(name); !ok || e.Status != directory.StatusOnline {
				return false
			}
		}
		return true
	}, testenv.Within(30*time.Second))
	return m
}

// startHostile runs an agent whose card's description is hostileDescription.
func startHostile(t testing.TB, b bus.Bus, name string) {
	t.Helper()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: hostileDescription,
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "<i>Echo</i>", Description: "</td></tr><script>window.__pwned = 3</script>"}}}, Bus: b, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult("<script>window.__pwned = 4</script>" + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
}

// get fetches url and returns its status and body.
func get(t testing.TB, url string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
