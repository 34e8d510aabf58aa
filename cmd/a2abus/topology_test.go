package main

import (
	"crypto/rand"
	"os"
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
	code, out, errOut := runCLI(t, "topology", "apply", "--agent", "Extra")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"embedded in-process bus", "agent.task.ResearchAgent", "agent.task.SampleAgent", "agent.task.Extra", "a2a.dead"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTopologyApplyBadInput(t *testing.T) {
	isolate(t, "")
	bad := filepath.Join(t.TempDir(), "wk.json")
	if err := os.WriteFile(bad, []byte(`[{"agentName":"a.b","description":"x","version":"1","skills":[]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", bad)
	if code, _, errOut := runCLI(t, "topology", "apply"); code == 0 || !strings.Contains(errOut, "a.b") {
		t.Fatalf("bad well-known file: exit %d, %q", code, errOut)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join("..", "..", "well-known-agents.json"))
	if code, _, errOut := runCLI(t, "topology", "apply", "--agent", "x.#"); code == 0 || !strings.Contains(errOut, "--agent") {
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
