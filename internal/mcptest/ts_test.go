// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/mcpserver"
)

// summary is what client.mjs prints.
type summary struct {
	Server  string   `json:"server"`
	Tools   []string `json:"tools"`
	Listed  []string `json:"listed"`
	BadCall struct {
		IsError bool   `json:"isError"`
		Code    string `json:"code"`
	} `json:"badCall"`
	Invoke struct {
		TaskID    string `json:"taskId"`
		MemoryKey string `json:"memoryKey"`
		Status    string `json:"status"`
	} `json:"invoke"`
	Link         string              `json:"link"`
	Updated      bool                `json:"updated"`
	Result       caller.StoredResult `json:"result"`
	NotFoundCode int                 `json:"notFoundCode"`
	NoToken      string              `json:"noToken"`
	SecondClient string              `json:"secondClient"`
}

// TestTypeScriptClient: the official TypeScript client lists the tools,
// finds SampleAgent, gets an INVALID_ARGUMENTS tool error for a bad call,
// invokes SampleAgent's echo, is notified when the result resource lands
// and reads it — over stdio (spawning the binary) and streamable HTTP.
func TestTypeScriptClient(t *testing.T) {
	nodeBin := testenv.Command(t, "node")
	sdk := testenv.NPMPackage(t, "@modelcontextprotocol/sdk", TSSDKVersion)
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	agent := startSampleAgent(t, w)
	env := environ(w, w.N("McpTs"))

	check := func(t *testing.T, mode string, out []byte) {
		t.Helper()
		var s summary
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("client output is not a summary: %v\n%s", err, out)
		}
		t.Logf("client.mjs: %s", out)
		for _, tool := range []string{"get_from_working_memory", "invoke_agent", "list_known_agents"} {
			if !slices.Contains(s.Tools, tool) {
				t.Errorf("tools/list = %v, missing %s", s.Tools, tool)
			}
		}
		want := "hello from ts over " + mode
		switch {
		case s.Server != "a2abus" || !slices.Equal(s.Listed, []string{agent}):
			t.Errorf("server %q listed %v, want a2abus listing %s", s.Server, s.Listed, agent)
		case !s.BadCall.IsError || s.BadCall.Code != "INVALID_ARGUMENTS":
			t.Errorf("bad invoke_agent = %+v, want an isError INVALID_ARGUMENTS", s.BadCall)
		case s.Invoke.Status != "submitted" || s.Link != mcpserver.ResultURI(s.Invoke.MemoryKey) || !s.Updated:
			t.Errorf("invoke %+v, link %q, updated %v", s.Invoke, s.Link, s.Updated)
		case s.Result.TaskID != s.Invoke.TaskID || s.Result.State != a2a.TaskStateCompleted || a2a.MessageText(s.Result.Message) != want:
			t.Errorf("result %+v, want task %s completed with %q", s.Result, s.Invoke.TaskID, want)
		case s.NotFoundCode != mcpserver.CodeResourceNotFound:
			t.Errorf("a result not there: code %d, want resource not found (%d)", s.NotFoundCode, mcpserver.CodeResourceNotFound)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		out := runClient(t, nodeBin, env, sdk, agent, "stdio", bin)
		check(t, "stdio", out)
	})
	t.Run("http", func(t *testing.T) {
		url := startHTTP(t, bin, env)
		out := runClient(t, nodeBin, env, sdk, agent, "http", url)
		check(t, "http", out)
	})
	// With a token and one session allowed: the client sending the token
	// works; one without it, and one more while the first holds the only
	// session, are told why.
	t.Run("http with a token", func(t *testing.T) {
		env := append(slices.Clone(env), "A2ABUS_MCP_TOKEN=ts-test-token-0123456789", "A2ABUS_MCP_MAX_SESSIONS=1")
		url := startHTTP(t, bin, env)
		out := runClient(t, nodeBin, env, sdk, agent, "http", url)
		check(t, "http", out)
		var s summary
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s.NoToken, "unauthorized: no Authorization header") {
			t.Errorf("a client without the token was told %q, want unauthorized, it sent none", s.NoToken)
		}
		if !strings.Contains(s.SecondClient, "too many sessions: 1 are open") {
			t.Errorf("a second client with one session allowed was told %q, want too many sessions", s.SecondClient)
		}
		t.Logf("told a client without the token: %s", s.NoToken)
		t.Logf("told a client beyond mcp.max_sessions: %s", s.SecondClient)
	})
}

// startSampleAgent runs SampleAgent in this process on the world's bus.
func startSampleAgent(t *testing.T, w *testworld.World) string {
	t.Helper()
	name := w.N("SampleAgent")
	sampletest.Start(t, w.Connect(t), name)
	return name
}

// environ is this process's environment without A2ABUS_* settings, plus
// the world's servers, exchange and key prefix and the caller name.
func environ(w *testworld.World, callerName string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			out = append(out, kv)
		}
	}
	return append(out,
		"A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix,
		"A2ABUS_CALLER_NAME="+callerName, "A2ABUS_LOG_LEVEL=warn", "A2ABUS_LOG_FORMAT=console",
		`A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`, // every call: not about the policy (policy.default stays deny)
	)
}

// runClient runs client.mjs to completion (bounded) and returns its stdout.
func runClient(t *testing.T, nodeBin string, env []string, sdk, agent, mode, target string) []byte {
	t.Helper()
	script, err := filepath.Abs("client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, sdk, agent, mode, target)
	cmd.Env, cmd.Dir = env, t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client.mjs %s: %v\nstdout: %s\nstderr: %s", mode, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// startHTTP starts `a2abus mcp --http 127.0.0.1:0` and returns the URL it
// prints; the process is interrupted at cleanup.
func startHTTP(t *testing.T, bin string, env []string) string {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0")
	cmd.Env, cmd.Dir = env, t.TempDir()
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("a2abus mcp --http: %v", err)
			} else if err != nil {
				t.Errorf("a2abus mcp --http exited with %v after an interrupt\nstderr: %s", err, stderr)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("a2abus mcp --http did not stop within 15s of an interrupt\nstderr: %s", stderr)
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "mcp: "); ok {
				urls <- u
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case u := <-urls:
		return u
	case err := <-done:
		done <- err
		t.Fatalf("a2abus mcp --http exited before printing its URL: %v\nstderr: %s", err, stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("a2abus mcp --http printed no URL within 30s\nstderr: %s", stderr)
	}
	return ""
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}
