// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remotetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// TestGatewayServesARemoteAgent: `a2abus gateway --remote NAME` bridges
// the remote A2A agent NAME (the official JavaScript SDK's server) onto the
// bus and serves it to A2A clients with the bus's own agents: a JSON-RPC
// SendMessage to the gateway travels gateway → bus → bridge → the
// JavaScript agent and back, with the agent's artifacts.
func TestGatewayServesARemoteAgent(t *testing.T) {
	nodeBin := testenv.Command(t, "node")
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	srv := startServer(t, nodeBin, testenv.NPMPackage(t, "@a2a-js/sdk", JSSDKVersion))
	name, principal, key := w.N("GwJsWeather"), w.N("GwAlice"), "remotetest-gateway-key-0123456789"

	cmd := exec.Command(bin, "gateway", "--listen", "127.0.0.1:0", "--remote", name)
	cmd.Env = append(environ(w),
		fmt.Sprintf(`A2ABUS_REMOTE_AGENTS=[{"name": %q, "card_url": %q}]`, name, srv.url),
		"A2ABUS_GATEWAY_KEYS="+principal+"="+key, "A2ABUS_DIRECTORY_WELL_KNOWN_FILE=")
	cmd.Dir = t.TempDir()
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("a2abus gateway:\n%s", stderr)
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "gateway: "); ok {
				urls <- u
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(time.Minute):
		t.Fatalf("the gateway printed no URL within a minute\n%s", stderr)
	}

	send := func() (int, []byte, error) {
		body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"echo hello"}]},"metadata":{"skill":"forecast"}}}`
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/agents/"+name, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	var reply []byte
	testenv.Eventually(t, "the gateway serves the remote agent (its bridge announced it)", func() bool {
		code, b, err := send()
		reply = b
		return err == nil && code == http.StatusOK && !strings.Contains(string(b), `"error"`)
	}, testenv.Within(time.Minute))
	var a struct {
		Result struct {
			Task struct {
				Status    struct{ State string } `json:"status"`
				Artifacts []struct {
					Name  string                  `json:"name"`
					Parts []struct{ Text string } `json:"parts"`
				} `json:"artifacts"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(reply, &a); err != nil || a.Result.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("SendMessage through the gateway: %v\n%s", err, reply)
	}
	var texts []string
	for _, art := range a.Result.Task.Artifacts {
		for _, p := range art.Parts {
			texts = append(texts, art.Name+":"+p.Text)
		}
	}
	if got := strings.Join(texts, ","); !strings.Contains(got, "echo:hello") {
		t.Errorf("artifacts %q: want the JavaScript agent's echo of hello\n%s", got, reply)
	}
}
