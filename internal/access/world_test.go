// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// world is a bus on which every principal connects as its own broker user:
// the embedded broker (inproc.ConnectAs) or the real RabbitMQ, with the
// users and the permissions of the access plan created for the test (and
// deleted after it).
type world struct {
	kind     string
	exchange string
	suffix   string
	broker   *inproc.Broker
	amqpURL  string
	plan     *Plan
	password string
	mem      memory.Memory
}

// eachWorld runs f on the embedded and the real bus.
func eachWorld(t *testing.T, roster Roster, f func(t *testing.T, w *world)) {
	t.Run("embedded", func(t *testing.T) { f(t, embeddedWorld(t)) })
	t.Run("real", func(t *testing.T) { f(t, realWorld(t, roster)) })
}

func embeddedWorld(t *testing.T) *world {
	b := inproc.NewBroker(inproc.Options{})
	w := &world{kind: "embedded", exchange: b.Exchange(), broker: b, mem: inmem.New(inmem.Options{})}
	t.Cleanup(func() { _ = b.Close(); _ = w.mem.Close() })
	return w
}

// realWorld creates the roster's users on the real broker with their
// planned permissions, under a private exchange; the roster's names get the
// world's suffix (use w.n).
func realWorld(t *testing.T, roster Roster) *world {
	base := testenv.AMQPURL(t)
	testenv.NeedRabbitmqctl(t)
	id := strings.ToLower(rand.Text()[:8])
	w := &world{kind: "real", exchange: "test.access." + id, suffix: id, amqpURL: base,
		password: rand.Text(), mem: inmem.New(inmem.Options{})}
	t.Cleanup(func() { _ = w.mem.Close() })
	r := roster
	r.Agents, r.Callers = w.names(roster.Agents), w.names(roster.Callers)
	if roster.MayCall != nil {
		r.MayCall = func(c, tg string) bool { return roster.MayCall(w.unsuffix(c), w.unsuffix(tg)) }
	}
	plan, err := Build(Options{Exchange: w.exchange, Principals: r.Principals()})
	if err != nil {
		t.Fatal(err)
	}
	w.plan = plan
	t.Cleanup(func() {
		deletes := make([][][]string, len(plan.Users))
		for i, u := range plan.Users {
			deletes[i] = [][]string{{"delete_user", u.Name}}
		}
		_ = rabbitmqctlGroups(t, deletes)
		w.deleteTopology(t)
	})
	// Each user's commands in order (add_user first), the users side by
	// side: every rabbitmqctl starts an Erlang VM, about 2s on a loaded machine.
	var users [][][]string
	for _, c := range plan.Commands(func(string) string { return w.password }) {
		if c[0] == "add_user" {
			users = append(users, nil)
		}
		users[len(users)-1] = append(users[len(users)-1], c)
	}
	if err := rabbitmqctlGroups(t, users); err != nil {
		t.Fatal(err)
	}
	return w
}

// rabbitmqctlGroups runs each group's rabbitmqctl commands in order, the
// groups concurrently, and returns the first error of each failed group.
func rabbitmqctlGroups(t *testing.T, groups [][][]string) error {
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, group := range groups {
		wg.Go(func() {
			for _, c := range group {
				if errs[i] = testenv.Rabbitmqctl(t, c...); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// n is name as the world spells it (suffixed on the real bus).
func (w *world) n(name string) string {
	if w.kind == "real" {
		return name + w.suffix
	}
	return name
}

func (w *world) names(ns []string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = w.n(n)
	}
	return out
}

func (w *world) unsuffix(name string) string { return strings.TrimSuffix(name, w.suffix) }

// userURL is the AMQP URL of the planned user acting as name.
func (w *world) userURL(name string) string {
	u, _ := url.Parse(w.amqpURL)
	u.User = url.UserPassword(name, w.password)
	return u.String()
}

// connect opens a bus as name's broker user.
func (w *world) connect(t *testing.T, name string) bus.Bus {
	t.Helper()
	if w.broker != nil {
		b := w.broker.ConnectAs(name)
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: w.userURL(name), Exchange: w.exchange, ReconnectMax: time.Second})
	if err != nil {
		t.Fatalf("connect as %s: %v", name, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// raw opens a plain amqp091 channel as name's user (real world only).
func (w *world) raw(t *testing.T, name string) (*amqp.Connection, *amqp.Channel) {
	t.Helper()
	conn, err := amqp.Dial(w.userURL(name))
	if err != nil {
		t.Fatalf("dial as %s: %v", name, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return conn, ch
}

// deleteTopology removes what the test declared, as guest.
func (w *world) deleteTopology(t *testing.T) {
	conn, err := amqp.Dial(w.amqpURL)
	if err != nil {
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return
	}
	for _, u := range w.plan.Users {
		for _, q := range []string{"agent.task." + u.Name, "agent.response." + u.Name} {
			_, _ = ch.QueueDelete(q, false, false, false)
		}
	}
	_, _ = ch.QueueDelete(a2a.DeadLetterQueue(w.exchange), false, false, false)
	_ = ch.ExchangeDelete(w.exchange, false, false)
	_ = ch.ExchangeDelete(a2a.DeadLetterExchange(w.exchange), false, false)
}

// gate is a skill that blocks until released, then answers "done".
type gate struct {
	started chan string // task ids
	release chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{started: make(chan string, 8), release: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func (g *gate) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	g.started <- t.Request.TaskID
	select {
	case <-g.release:
		return agent.TextResult("done"), nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// startAgent runs agent name on b with the skills echo and gate.
func startAgent(t *testing.T, b bus.Bus, name string, g *gate) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Version: "1"}, Bus: b, AnnounceInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	echo := func(_ context.Context, tk *agent.Task) (*agent.Result, error) {
		return agent.TextResult("echo: " + tk.Text()), nil
	}
	if err := a.Handle("echo", echo); err != nil {
		t.Fatal(err)
	}
	if g != nil {
		if err := a.Handle("gate", g.handle); err != nil {
			t.Fatal(err)
		}
	}
	run(t, a.Run)
	waitServing(t, b, name)
	return a
}

// waitServing waits, on the real broker, until agent name consumes its task
// queue: a caller's user may declare its target's queue but not create it
// (a new queue with a dead-letter exchange also needs read on it,
// docs/security.md), so a call made before the agent declared it would be
// refused ACCESS_REFUSED.
func waitServing(t *testing.T, b bus.Bus, name string) {
	t.Helper()
	rb, ok := b.(*rabbitmq.Bus)
	if !ok {
		return // the embedded bus checks no permissions
	}
	queue := mustKey(a2a.TaskRoutingKey(name))
	var last error
	testenv.Eventually(t, name+" consumes "+queue, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		st, err := rb.Inspect(ctx, queue)
		last = err
		return err == nil && st.Consumers > 0
	}, testenv.Explain(func() string { return fmt.Sprint(last) }))
}

// startCaller runs caller name on b with memory m.
func startCaller(t *testing.T, b bus.Bus, m memory.Memory, name string) *caller.Caller {
	t.Helper()
	c, err := caller.New(caller.Options{Name: name, Bus: b, Memory: m, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	run(t, c.Run)
	return c
}

// run runs fn until the test ends.
func run(t *testing.T, fn func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("a part did not stop")
		}
	})
}
