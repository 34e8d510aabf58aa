// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// roster of the identity tests: agents Alpha and Beta (each may delegate)
// and Gamma (never started), the plain caller Cli; the policy lets everyone
// call everyone but Cli Beta.
var roster = Roster{
	Agents:  []string{"Alpha", "Beta", "Gamma"},
	Callers: []string{"Cli"},
	MayCall: func(c, t string) bool { return !(c == "Cli" && t == "Beta") },
}

// TestIdentities runs, on the embedded bus and on the real broker with the
// planned least-privilege users, a full round trip and the refusals of
// messages whose body claims another identity than their broker user.
func TestIdentities(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	eachWorld(t, roster, func(t *testing.T, w *world) {
		alpha, beta, cli := w.n("Alpha"), w.n("Beta"), w.n("Cli")
		g := newGate()
		defer g.open()
		alphaBus, betaBus, cliBus := w.connect(t, alpha), w.connect(t, beta), w.connect(t, cli)
		startAgent(t, alphaBus, alpha, g)
		startAgent(t, betaBus, beta, nil)
		cliCaller := startCaller(t, cliBus, w.mem, cli)
		alphaCaller := startCaller(t, alphaBus, w.mem, alpha) // Alpha delegating, on its own user
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		codec := a2a.Codec{}

		t.Run("round trip with own users", func(t *testing.T) {
			for _, c := range []struct {
				from   *caller.Caller
				target string
			}{{cliCaller, alpha}, {alphaCaller, beta}} {
				out, err := c.from.Call(ctx, caller.Request{Target: c.target, Skill: "echo", Text: "hi"}, nil)
				if err != nil || out.Err() != nil || out.Result.Text() != "echo: hi" {
					t.Fatalf("%s → %s: %v, %+v", c.from.Name(), c.target, err, out)
				}
			}
		})

		t.Run("a task claiming another caller is refused", func(t *testing.T) {
			dead := watchDead(t, w)
			req := &a2a.TaskRequest{TaskID: "forged-" + w.n("t1"), SessionID: "s", Caller: cli, Target: alpha, Skill: "gate",
				Message: a2a.NewTextMessage(a2a.MessageRoleUser, "x"), Deadline: time.Now().Add(time.Minute)}
			publish(t, codec, betaBus, mustKey(a2a.TaskRoutingKey(alpha)), req) // Beta's user, Cli's name
			dead.wait(t, req.TaskID)
			select {
			case id := <-g.started:
				t.Fatalf("the forged task %s ran", id)
			default:
			}
		})

		t.Run("a cancel claiming another caller is ignored", func(t *testing.T) {
			inv, err := cliCaller.Invoke(ctx, caller.Request{Target: alpha, Skill: "gate", Text: "x"})
			if err != nil {
				t.Fatal(err)
			}
			waitStarted(t, g, inv.TaskID)
			publish(t, codec, betaBus, mustKey(a2a.CancelRoutingKey(alpha)),
				&a2a.TaskCancel{TaskID: inv.TaskID, Caller: cli, Target: alpha, Time: time.Now()})
			// Alpha handles its instance queue in order: once it answers a
			// query sent after the cancel, it has handled the cancel.
			announced := watchAnnounces(t, w, betaBus)
			publish(t, codec, betaBus, a2a.RoutingKeyDiscoveryQuery, &a2a.DiscoveryQuery{Time: time.Now()})
			announced.wait(t, alpha)
			g.open()
			out, err := cliCaller.Wait(ctx, inv.TaskID, nil)
			if err != nil || out.Err() != nil || out.Result.Text() != "done" {
				t.Fatalf("task after a forged cancel: %v, %+v", err, out)
			}
		})

	})
}

// TestForgedResultBeforeTheAnswer sends the forged result while the real
// task still runs, so it is surely handled first.
func TestForgedResultBeforeTheAnswer(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	eachWorld(t, roster, func(t *testing.T, w *world) {
		alpha, beta, cli := w.n("Alpha"), w.n("Beta"), w.n("Cli")
		g := newGate()
		defer g.open()
		alphaBus, betaBus, cliBus := w.connect(t, alpha), w.connect(t, beta), w.connect(t, cli)
		startAgent(t, alphaBus, alpha, g)
		cliCaller := startCaller(t, cliBus, w.mem, cli)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		inv, err := cliCaller.Invoke(ctx, caller.Request{Target: alpha, Skill: "gate", Text: "x"})
		if err != nil {
			t.Fatal(err)
		}
		waitStarted(t, g, inv.TaskID)
		dead := watchDead(t, w)
		publish(t, a2a.Codec{}, betaBus, mustKey(a2a.ResponseRoutingKey(cli)), &a2a.TaskResult{TaskID: inv.TaskID, Agent: alpha,
			State: a2a.TaskStateCompleted, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "forged"), Time: time.Now()})
		dead.wait(t, inv.TaskID) // refused: dead-lettered, not finalized
		g.open()
		out, err := cliCaller.Wait(ctx, inv.TaskID, nil)
		if err != nil || out.Result.Text() != "done" {
			t.Fatalf("outcome %v, %+v; want Alpha's own answer", err, out)
		}
	})
}

// TestLeastPrivilege checks on the real broker what the planned permissions
// refuse, and that a deregistration of another agent can be told from its
// broker user.
func TestLeastPrivilege(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	w := realWorld(t, roster)
	alpha, beta, cli := w.n("Alpha"), w.n("Beta"), w.n("Cli")
	// The agents' queues exist, declared by their owners.
	alphaBus := w.connect(t, alpha)
	startAgent(t, alphaBus, alpha, nil)
	startAgent(t, w.connect(t, beta), beta, nil)
	cliCaller := startCaller(t, w.connect(t, cli), w.mem, cli)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A call declares Alpha's task queue and Cli's response queue, and shows the plan suffices.
	if out, err := cliCaller.Call(ctx, caller.Request{Target: alpha, Skill: "echo", Text: "hi"}, nil); err != nil || out.Err() != nil {
		t.Fatalf("call with the planned permissions: %v, %+v", err, out)
	}
	refused := func(t *testing.T, what string, err error, code int) {
		t.Helper()
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != code {
			t.Errorf("%s: %v, want AMQP %d", what, err, code)
		}
	}

	t.Run("a call to an agent whose queue was never declared says why it is refused", func(t *testing.T) {
		// Cli may call Gamma (configure and write on its task queue) but not
		// create the queue: a new queue with a dead-letter exchange needs read too.
		_, err := cliCaller.Call(ctx, caller.Request{Target: w.n("Gamma"), Skill: "echo", Text: "hi"}, nil)
		refused(t, cli+" calls "+w.n("Gamma"), err, amqp.AccessRefused)
		if err == nil || !strings.Contains(err.Error(), "may not create it") || !strings.Contains(err.Error(), "a2abus topology apply") {
			t.Errorf("the refusal does not say why nor what to do: %v", err)
		}
	})

	t.Run("an agent cannot consume another's task or response queue", func(t *testing.T) {
		for _, q := range []string{mustKey(a2a.TaskRoutingKey(alpha)), mustKey(a2a.ResponseRoutingKey(cli)), mustKey(a2a.ResponseRoutingKey(alpha))} {
			_, ch := w.raw(t, beta)
			_, err := ch.Consume(q, "", false, false, false, false, nil)
			refused(t, beta+" consumes "+q, err, amqp.AccessRefused)
		}
	})

	t.Run("an agent cannot publish as another", func(t *testing.T) {
		_, ch := w.raw(t, beta)
		if err := ch.Confirm(false); err != nil {
			t.Fatal(err)
		}
		closed := ch.NotifyClose(make(chan *amqp.Error, 1))
		dc, err := ch.PublishWithDeferredConfirm(w.exchange, mustKey(a2a.TaskRoutingKey(alpha)), false, false,
			amqp.Publishing{UserId: cli, Body: []byte("{}")})
		if err == nil && dc.Wait() {
			t.Fatal("a publish with another user's user_id was confirmed")
		}
		refused(t, "user_id of another user", <-closed, amqp.PreconditionFailed)
	})

	t.Run("a caller cannot call an agent the policy denies it", func(t *testing.T) {
		_, ch := w.raw(t, cli)
		closed := ch.NotifyClose(make(chan *amqp.Error, 1))
		_ = ch.Publish(w.exchange, mustKey(a2a.TaskRoutingKey(beta)), false, false, amqp.Publishing{Body: []byte("{}")})
		refused(t, cli+" publishes a task to "+beta, <-closed, amqp.AccessRefused)
	})

	t.Run("a principal cannot bind its own queue to snoop on others", func(t *testing.T) {
		for i, key := range []string{mustKey(a2a.ResponseRoutingKey(alpha)), mustKey(a2a.TaskRoutingKey(beta)), "#", "agent.#"} {
			_, ch := w.raw(t, cli)
			q := fmt.Sprintf("%ssnoop%d", instancePrefix(cli), i)
			if _, err := ch.QueueDeclare(q, false, true, true, false, nil); err != nil {
				t.Fatal(err)
			}
			refused(t, cli+" binds to "+key, ch.QueueBind(q, key, w.exchange, false, nil), amqp.AccessRefused)
		}
	})

	t.Run("a principal cannot delete another's queue or the exchange", func(t *testing.T) {
		for _, q := range []string{mustKey(a2a.TaskRoutingKey(alpha)), mustKey(a2a.ResponseRoutingKey(cli))} {
			_, ch := w.raw(t, beta)
			_, err := ch.QueueDelete(q, false, false, false)
			if q == mustKey(a2a.TaskRoutingKey(alpha)) {
				// Beta may call Alpha, so it may declare (configure) Alpha's task queue: see docs/security.md.
				continue
			}
			refused(t, beta+" deletes "+q, err, amqp.AccessRefused)
		}
	})

	t.Run("a deregistration of another agent names its real sender", func(t *testing.T) {
		announced := watchAnnounces(t, w, alphaBus)
		card := &a2a.AgentCard{Name: alpha, Version: "1"}
		publish(t, a2a.Codec{}, w.connect(t, beta), a2a.RoutingKeyAnnounce,
			&a2a.Announcement{Card: card, InstanceID: "forged", Time: time.Now(), Deregistering: true})
		d := announced.waitDelivery(t, "forged")
		var ids *bus.Identities
		if s := ids.Sender(alpha, &d.Message); s.Allows(alpha) || s.User != beta {
			t.Errorf("the directory cannot tell the forged deregistration: sender %v", s)
		}
	})

	t.Run("an agent cannot deregister another", func(t *testing.T) {
		dir, err := directory.New(directory.Options{Bus: w.connect(t, cli), Exchange: w.exchange})
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, dir)
		online := func(name string) func() bool {
			return func() bool { e, ok := dir.Lookup(name); return ok && e.Status == directory.StatusOnline }
		}
		testenv.Eventually(t, alpha+" listed", online(alpha), testenv.WakeOn(dir.Changes()))
		betaBus := w.connect(t, beta)
		publish(t, a2a.Codec{}, betaBus, a2a.RoutingKeyAnnounce, &a2a.Announcement{Card: &a2a.AgentCard{Name: alpha, Version: "1"},
			InstanceID: "forged", Time: time.Now(), Deregistering: true})
		// Beta's own card after the forgery, on the same connection: once it is
		// listed, the forged deregistration before it was handled.
		publish(t, a2a.Codec{}, betaBus, a2a.RoutingKeyAnnounce, &a2a.Announcement{Card: &a2a.AgentCard{Name: beta, Version: "1"},
			InstanceID: "marker", Time: time.Now()})
		testenv.Eventually(t, beta+" listed after the forgery", online(beta), testenv.WakeOn(dir.Changes()))
		if e, ok := dir.Lookup(alpha); !ok || e.Status != directory.StatusOnline || len(e.Instances) == 0 {
			t.Fatalf("%s after a deregistration forged by %s: %+v", alpha, beta, e)
		}
	})
}

// publish encodes p and publishes it on b under key.
func publish(t *testing.T, codec a2a.Codec, b bus.Bus, key string, p a2a.Payload) {
	t.Helper()
	env, err := codec.Encode(p, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Publish(ctx, bus.Message{Envelope: env, RoutingKey: key}); err != nil {
		t.Fatalf("publish %s: %v", key, err)
	}
}

func waitStarted(t *testing.T, g *gate, id string) {
	t.Helper()
	select {
	case got := <-g.started:
		if got != id {
			t.Fatalf("started %s, want %s", got, id)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("task %s did not start", id)
	}
}

// seen collects deliveries by a key.
type seen struct {
	ch chan *bus.Delivery
	by func(*bus.Delivery) string
}

func (s *seen) waitDelivery(t *testing.T, key string) *bus.Delivery {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case d := <-s.ch:
			if s.by(d) == key {
				return d
			}
		case <-deadline:
			t.Fatalf("no message for %s", key)
			return nil
		}
	}
}

func (s *seen) wait(t *testing.T, key string) { t.Helper(); s.waitDelivery(t, key) }

// consume runs a consumer of queue on b collecting into a seen.
func consume(t *testing.T, b bus.Bus, spec *bus.QueueSpec, queue string, by func(*bus.Delivery) string) *seen {
	t.Helper()
	s := &seen{ch: make(chan *bus.Delivery, 64), by: by}
	if spec != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Declare(ctx, *spec); err != nil {
			t.Fatal(err)
		}
	}
	run(t, func(ctx context.Context) error {
		err := b.Consume(ctx, queue, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			select {
			case s.ch <- d:
			default:
			}
			return nil
		})
		if errors.Is(err, bus.ErrClosed) {
			return nil
		}
		return err
	})
	return s
}

// watchDead consumes the dead-letter queue (as the broker's admin on the
// real bus: no principal may read it) by correlation id.
func watchDead(t *testing.T, w *world) *seen {
	var b bus.Bus
	if w.broker != nil {
		b = w.broker.Connect()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rb, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: w.amqpURL, Exchange: w.exchange})
		if err != nil {
			t.Fatal(err)
		}
		b = rb
	}
	t.Cleanup(func() { _ = b.Close() })
	return consume(t, b, nil, a2a.DeadLetterQueue(w.exchange), func(d *bus.Delivery) string { return d.CorrelationID })
}

// watchAnnounces consumes discovery.announce on b as a directory would, by
// announced agent name (and instance id).
func watchAnnounces(t *testing.T, w *world, b bus.Bus) *seen {
	spec, err := bus.InstanceQueue("directory", "test"+strings.ToLower(w.n("x")), a2a.RoutingKeyAnnounce)
	if err != nil {
		t.Fatal(err)
	}
	spec.Name += strings.ToLower(time.Now().Format("150405.000000"))
	return consume(t, b, &spec, spec.Name, func(d *bus.Delivery) string {
		p, err := (a2a.Codec{}).Decode(d.Envelope)
		if a, ok := p.(*a2a.Announcement); ok && err == nil {
			if a.InstanceID == "forged" {
				return "forged"
			}
			return a.Card.Name
		}
		return ""
	})
}
