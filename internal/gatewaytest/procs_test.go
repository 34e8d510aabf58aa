// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gatewaytest

import (
	"bufio"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// environ is this process's environment without A2ABUS_* settings, plus
// the world's servers, exchange and key prefix, and more.
func environ(w *testworld.World, more ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			out = append(out, kv)
		}
	}
	return append(append(out,
		"A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix,
		"A2ABUS_DIRECTORY_WELL_KNOWN_FILE=", "A2ABUS_LOG_LEVEL=warn", "A2ABUS_LOG_FORMAT=console",
		`A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`, // every call: not about the policy (policy.default stays deny)
	), more...)
}

// gateway is a running `a2abus gateway` process.
type gateway struct {
	url    string
	cmd    *exec.Cmd
	stderr *testenv.Buffer
	done   chan error
}

// startGateway starts `a2abus gateway --listen 127.0.0.1:0` and returns it
// once it printed its URL; it is interrupted at cleanup (if not killed).
func startGateway(t *testing.T, bin string, env []string) *gateway {
	t.Helper()
	g := &gateway{cmd: exec.Command(bin, "gateway", "--listen", "127.0.0.1:0"), stderr: &testenv.Buffer{}, done: make(chan error, 1)}
	g.cmd.Env, g.cmd.Dir, g.cmd.Stderr = env, t.TempDir(), g.stderr
	stdout, err := g.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.done <- g.cmd.Wait() }()
	t.Cleanup(func() {
		_ = g.cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-g.done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("a2abus gateway: %v", err)
			}
		case <-time.After(60 * time.Second):
			_ = g.cmd.Process.Kill()
			t.Errorf("a2abus gateway did not stop on an interrupt\nstderr: %s", g.stderr)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("a2abus gateway printed no URL: %v\nstderr: %s", err, g.stderr)
	}
	g.url = strings.TrimSpace(strings.TrimPrefix(line, "gateway: "))
	return g
}

// kill kills the process at once (SIGKILL): no drain, no goodbye.
func (g *gateway) kill(t *testing.T) {
	t.Helper()
	if err := g.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-g.done
	g.done <- nil // for the cleanup
}

// waitForCard waits until the gateway serves agent's card to key.
func waitForCard(t *testing.T, g *gateway, agent, key string) {
	t.Helper()
	testenv.Eventually(t, "the gateway serves the card of "+agent, func() bool {
		req, _ := http.NewRequest(http.MethodGet, g.url+"/agents/"+agent+"/.well-known/agent-card.json", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}
