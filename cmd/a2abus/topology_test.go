// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/internal/testenv"
)

func TestTopologyApplyEmbedded(t *testing.T) {
	isolate(t, "")
	wd, _ := os.Getwd()
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join(wd, "..", "..", "well-known-agents.json"))
	code, out, errOut := runCLI(t, "topology", "apply", "--agent", "Extra", "--embedded")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"embedded in-process bus", "agent.task.ResearchAgent", "agent.task.SampleAgent", "agent.task.Extra", "a2a.dead"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "set_policy") {
		t.Errorf("the embedded bus has no policies, yet the output recommends one:\n%s", out)
	}
}

func TestTopologyApplyBadInput(t *testing.T) {
	isolate(t, "")
	bad := filepath.Join(t.TempDir(), "wk.json")
	if err := os.WriteFile(bad, []byte(`[{"agentName":"a.b","description":"x","version":"1","skills":[]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", bad)
	if code, _, errOut := runCLI(t, "topology", "apply", "--embedded"); code == 0 || !strings.Contains(errOut, "a.b") {
		t.Fatalf("bad well-known file: exit %d, %q", code, errOut)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join("..", "..", "well-known-agents.json"))
	if code, _, errOut := runCLI(t, "topology", "apply", "--agent", "x.#", "--embedded"); code == 0 || !strings.Contains(errOut, "--agent") {
		t.Fatalf("bad --agent: exit %d, %q", code, errOut)
	}
}

// TestTopologyApplyRabbitMQ declares on the real broker, under a private
// exchange, and refuses a queue that exists with other arguments.
func TestTopologyApplyRabbitMQ(t *testing.T) {
	url := testenv.AMQPURL(t)
	isolate(t, "")
	suffix := strings.ToLower(rand.Text()[:10])
	exchange := "topotest." + suffix
	agent := "TopoAgent" + suffix
	clash := "TopoClash" + suffix
	wk := filepath.Join(t.TempDir(), "wk.json")
	if err := os.WriteFile(wk, []byte(`[{"agentName":"`+agent+`","description":"d","version":"1","skills":[{"id":"s","name":"S","description":"d"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", wk)
	t.Setenv("A2ABUS_BUS_URL", url)
	t.Setenv("A2ABUS_BUS_EXCHANGE", exchange)
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A connection of its own: the test's closes first, and its channel
		// is closed by the failed declares it provokes.
		conn, err := amqp.Dial(url)
		if err != nil {
			t.Errorf("clean up: %v", err)
			return
		}
		defer conn.Close()
		ch, err := conn.Channel()
		if err != nil {
			t.Errorf("clean up: %v", err)
			return
		}
		for _, q := range []string{"agent.task." + agent, "agent.task." + clash, exchange + ".dead"} {
			if _, err := ch.QueueDelete(q, false, false, false); err != nil {
				t.Errorf("clean up: delete queue %s: %v", q, err)
			}
		}
		_ = ch.ExchangeDelete(exchange, false, false)
		_ = ch.ExchangeDelete(exchange+".dlx", false, false)
	})

	code, out, errOut := runCLI(t, "topology", "apply")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "RabbitMQ") {
		t.Fatalf("output: %s", out)
	}
	if want := deadLetterPolicyCommand(url, exchange); !strings.Contains(out, "\n  "+want+"\n") {
		t.Errorf("output lacks the dead queue policy %s:\n%s", want, out)
	}
	// Passive declares fail (and close the channel) if a queue is missing.
	for _, q := range []string{"agent.task." + agent, exchange + ".dead"} {
		if _, err := ch.QueueDeclarePassive(q, true, false, false, false, nil); err != nil {
			t.Fatalf("queue %s not declared: %v", q, err)
		}
	}
	// Applying twice is harmless.
	if code, _, errOut := runCLI(t, "topology", "apply"); code != 0 {
		t.Fatalf("second apply: %s", errOut)
	}
	// A queue declared elsewhere without the priority argument is a clear error.
	if _, err := ch.QueueDeclare("agent.task."+clash, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "topology", "apply", "--agent", clash)
	if code == 0 || !strings.Contains(errOut, "agent.task."+clash) || !strings.Contains(errOut, "inequivalent arg") {
		t.Fatalf("mismatch: exit %d, %q", code, errOut)
	}
}

// TestDeadLetterPolicyCommand: the recommended policy names the dead queue of
// the configured exchange exactly, in the vhost of bus.url, and is the
// command docs/topology.md documents for the defaults.
func TestDeadLetterPolicyCommand(t *testing.T) {
	const def = `rabbitmqctl set_policy -p '/' --apply-to queues --priority 1 a2a-dead-limits '^a2a\.dead$' '{"max-length":100000,"message-ttl":1209600000,"overflow":"drop-head"}'`
	cases := []struct{ url, exchange, want string }{
		{"amqp://guest:guest@127.0.0.1:5672/", "a2a", def},
		{"amqp://rabbit", "a2a", def},
		{"amqps://u:p@rabbit:5671/tenant%2F1", "t-1.x", `rabbitmqctl set_policy -p 'tenant/1' --apply-to queues --priority 1 t-1.x-dead-limits '^t-1\.x\.dead$' '{"max-length":100000,"message-ttl":1209600000,"overflow":"drop-head"}'`},
		{"amqp://rabbit/it's", "a2a", `rabbitmqctl set_policy -p 'it'\''s' --apply-to queues --priority 1 a2a-dead-limits '^a2a\.dead$' '{"max-length":100000,"message-ttl":1209600000,"overflow":"drop-head"}'`},
	}
	for _, c := range cases {
		if got := deadLetterPolicyCommand(c.url, c.exchange); got != c.want {
			t.Errorf("deadLetterPolicyCommand(%q, %q) =\n  %s\nwant\n  %s", c.url, c.exchange, got, c.want)
		}
	}
	for _, doc := range []string{"topology.md", "operations.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), def) {
			t.Errorf("docs/%s does not show the command topology apply recommends:\n  %s", doc, def)
		}
	}
}

// TestDeadLetterPolicyBoundsTheDeadQueue runs, in a vhost of its own, the
// policy command topology apply prints (with a max-length of 3) and sees the
// dead queue keep only the 3 newest of 10 dead letters.
func TestDeadLetterPolicyBoundsTheDeadQueue(t *testing.T) {
	base := testenv.AMQPURL(t)
	testenv.NeedRabbitmqctl(t)
	isolate(t, "")
	suffix := strings.ToLower(rand.Text()[:10])
	vhost, exchange := "a2abus-deadpolicy-"+suffix, "deadtest."+suffix
	if err := testenv.Rabbitmqctl(t, "add_vhost", vhost); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := testenv.Rabbitmqctl(t, "delete_vhost", vhost); err != nil {
			t.Errorf("clean up: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := testenv.Rabbitmqctl(t, "set_permissions", "-p", vhost, u.User.Username(), ".*", ".*", ".*"); err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawPath = "/"+vhost, ""
	vhostURL := u.String()
	wk := filepath.Join(t.TempDir(), "wk.json")
	if err := os.WriteFile(wk, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", wk)
	t.Setenv("A2ABUS_BUS_URL", vhostURL)
	t.Setenv("A2ABUS_BUS_EXCHANGE", exchange)
	code, out, errOut := runCLI(t, "topology", "apply")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cmd := deadLetterPolicyCommand(vhostURL, exchange)
	if !strings.Contains(out, cmd) {
		t.Fatalf("output lacks the policy %s:\n%s", cmd, out)
	}
	small := strings.Replace(cmd, `"max-length":100000`, `"max-length":3`, 1)
	ctx, cancel := context.WithTimeout(t.Context(), testenv.BrokerControlBound)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "sh", "-c", small).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", small, err, out)
	}

	conn, err := amqp.Dial(vhostURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		dc, err := ch.PublishWithDeferredConfirmWithContext(t.Context(), exchange+".dlx", "agent.task.X", true, false,
			amqp.Publishing{Body: []byte(fmt.Sprint(i)), DeliveryMode: amqp.Persistent})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := dc.WaitContext(t.Context()); !ok || err != nil {
			t.Fatalf("dead letter %d not confirmed: %v", i, err)
		}
	}
	dead := exchange + ".dead"
	testenv.Eventually(t, "the dead queue is bounded to 3 messages", func() bool {
		q, err := ch.QueueDeclarePassive(dead, true, false, false, false, nil)
		if err != nil {
			t.Fatalf("inspect %s: %v", dead, err)
		}
		return q.Messages == 3
	})
	for _, want := range []string{"7", "8", "9"} { // drop-head kept the newest
		d, ok, err := ch.Get(dead, true)
		if err != nil || !ok || string(d.Body) != want {
			t.Fatalf("dead letter = %q, %v, %v; want %q", d.Body, ok, err, want)
		}
	}
}
