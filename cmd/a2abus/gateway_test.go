// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
)

const gatewayKey = "cmd-gateway-key-0123456789"

// TestGatewayRefusesWithoutPrincipals: a gateway nobody could call
// authenticated does not start.
func TestGatewayRefusesWithoutPrincipals(t *testing.T) {
	isolate(t, "")
	code, _, errOut := runCLI(t, "gateway", "--embedded", "--listen", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "no principals") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestGatewayRefusesNamesItsUserMayNotActAs: on a bus whose receivers take
// the sender from the broker, a principal's name the gateway's broker user
// is not mapped to stops it before it connects, naming the identity.users
// entry to add; with the entry it goes on (to the unreachable broker).
func TestGatewayRefusesNamesItsUserMayNotActAs(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_BUS_URL", "amqp://gw:pw@127.0.0.1:1/")
	t.Setenv("A2ABUS_GATEWAY_KEYS", "Alice="+gatewayKey)
	code, _, errOut := runCLI(t, "gateway", "--listen", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "identity.users") || !strings.Contains(errOut, "gw=Alice") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	t.Setenv("A2ABUS_IDENTITY_USERS", "gw=Alice")
	code, _, errOut = runCLI(t, "gateway", "--listen", "127.0.0.1:0")
	if code == 0 || strings.Contains(errOut, "identity.users") {
		t.Errorf("with the entry: exit %d, stderr %q", code, errOut)
	}
}

// TestGatewayServesTheAgentsOfTheBus: `a2abus gateway` prints its URL,
// lists the running agent, runs a send for the key's caller name, and
// stops when its context ends.
func TestGatewayServesTheAgentsOfTheBus(t *testing.T) {
	w := testworld.Real(t)
	isolate(t, "")
	name, alice := w.N("GwEcho"), w.N("GwAlice")
	useWorld(t, w, map[string]string{"GATEWAY_KEYS": alice + "=" + gatewayKey, "LOG_LEVEL": "error", "DIRECTORY_WELL_KNOWN_FILE": ""})
	startAgent(t, w, name, map[string]agent.Handler{"say": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult(task.Request.Caller + " said " + task.Text()), nil
	}})
	outR, outW := io.Pipe()
	stderr := &testenv.Buffer{}
	root := newRootCmd(outW, stderr)
	root.SetArgs([]string{"gateway", "--listen", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	line := make([]byte, 64)
	n, err := outR.Read(line)
	if err != nil {
		t.Fatalf("no URL printed: %v; stderr %s", err, stderr)
	}
	url := strings.TrimSpace(strings.TrimPrefix(string(line[:n]), "gateway: "))
	go func() { _, _ = io.Copy(io.Discard, outR) }()

	testenv.Eventually(t, "the gateway lists the agent", func() bool {
		req, _ := http.NewRequest(http.MethodGet, url+"/agents", nil)
		req.Header.Set("Authorization", "Bearer "+gatewayKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == 200 && strings.Contains(string(b), `"name":"`+name+`"`)
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"metadata":{"skill":"say"}}}`
	req, _ := http.NewRequest(http.MethodPost, url+"/agents/"+name, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", gatewayKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var a struct {
		Result struct {
			Task struct {
				Status    struct{ State string } `json:"status"`
				Artifacts []struct {
					Parts []struct{ Text string } `json:"parts"`
				} `json:"artifacts"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &a); err != nil || a.Result.Task.Status.State != "TASK_STATE_COMPLETED" ||
		len(a.Result.Task.Artifacts) != 1 || a.Result.Task.Artifacts[0].Parts[0].Text != alice+" said hi" {
		t.Errorf("send: %s", b)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a2abus gateway: %v\nstderr: %s", err, stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("a2abus gateway did not stop\nstderr: %s", stderr)
	}
}

// TestAccessPlanIncludesTheGateway: access plan gives the gateway's
// broker user what its callers need — their response queues, and the
// task queues of the agents the policy lets them call — under the names
// identity.users maps it to; --no-gateway leaves them out.
func TestAccessPlanIncludesTheGateway(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_GATEWAY_KEYS", "Alice="+gatewayKey+",Bob=bob-"+gatewayKey)
	t.Setenv("A2ABUS_IDENTITY_USERS", "gw=Alice,gw=Bob")
	args := []string{"access", "plan", "--no-config-caller", "--no-well-known", "--agent", "SampleAgent"}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"# gw acts as Alice, Bob", `agent\.response\.Alice`, `agent\.response\.Bob`, `agent\.task\.SampleAgent`} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, gatewayKey) {
		t.Errorf("the plan shows a key:\n%s", out)
	}
	code, out, _ = runCLI(t, append(args, "--no-gateway")...)
	if code != 0 || strings.Contains(out, "gw") {
		t.Errorf("--no-gateway: exit %d\n%s", code, out)
	}
}
