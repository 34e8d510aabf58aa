// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/node"
)

type sharedMemory struct{ memory.Memory }

func (sharedMemory) Close() error { return nil }

// conversePair runs, in this process on w, a local agent with one skill
// (draft) and a remote one (answer) that records what it receives; the
// answer to the message of turn holdTurn waits until release is closed.
type conversePair struct {
	local, remote string
	mu            sync.Mutex
	got           []string
}

func (p *conversePair) received() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func startConversePair(t *testing.T, w *testworld.World, holdTurn int, release <-chan struct{}) *conversePair {
	t.Helper()
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	// The agents' own policy (deny by default) lets the orchestrators call them.
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "Converse*", Allow: []string{"CvLocal*", "CvRemote*"}}}
	n, err := node.With(cfg, w.Connect(t), sharedMemory{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &conversePair{local: w.N("CvLocal"), remote: w.N("CvRemote")}
	start := func(name, skill string, h agent.Handler) {
		a, err := n.Agent(a2a.AgentCard{Name: name, Description: "test", Version: "1",
			Skills: []a2a.AgentSkill{{ID: skill, Name: skill, Description: "test"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
	}
	start(p.local, "draft", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		var req converse.DraftRequest
		if err := task.DecodeInput(&req); err != nil {
			return nil, err
		}
		return agent.TextResult(fmt.Sprintf("turn %d: %s", req.TurnIndex, req.Objective)), nil
	})
	start(p.remote, "answer", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		p.mu.Lock()
		p.got = append(p.got, task.Text())
		p.mu.Unlock()
		if strings.HasPrefix(task.Text(), fmt.Sprintf("turn %d:", holdTurn)) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return agent.TextResult("ok: " + task.Text()), nil
	})
	return p
}

// converseEnv is the environment of an a2abus process on w.
func converseEnv(w *testworld.World) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			out = append(out, kv)
		}
	}
	return append(out, "A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix,
		"A2ABUS_LOG_LEVEL=warn", "A2ABUS_DIRECTORY_WELL_KNOWN_FILE=", "A2ABUS_DIRECTORY_KNOWN_AGENTS_FILE=")
}

// An orchestrator killed with SIGKILL while it waits for a reply is
// replaced by `converse resume`, which finishes the conversation from its
// saved state: the remote agent receives every turn exactly once.
func TestConverseSurvivesKill9(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	release := make(chan struct{})
	p := startConversePair(t, w, 2, release)
	as := w.N("Converse")
	var out testenv.Buffer
	start := exec.Command(bin, "converse", "start", "--local", p.local, "--remote", p.remote, "--remote-skill", "answer",
		"--objective", "check the API", "--mode", "full_auto", "--allow", "--max-turns", "3",
		"--as", as, "--lease-ttl", "1s", "--json")
	start.Env = converseEnv(w)
	start.Stdout, start.Stderr = &out, &out
	start.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := start.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- start.Wait() }()
	t.Cleanup(func() { _ = start.Process.Kill() })

	testenv.Eventually(t, "turn 2 sent", func() bool { return len(p.received()) == 2 },
		testenv.Explain(func() string { return out.String() }))
	id := conversationID(t, out.String())
	if err := start.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	close(release) // the reply comes while no orchestrator runs: it waits in the response queue

	resume := exec.Command(bin, "converse", "resume", id, "--as", as, "--lease-ttl", "1s", "--json")
	resume.Env = converseEnv(w)
	got, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, got)
	}
	rec, err := converse.Load(context.Background(), w.Memory, id)
	if err != nil {
		t.Fatal(err)
	}
	sent := p.received()
	if len(sent) != 3 || !strings.HasPrefix(sent[0], "turn 1:") || !strings.HasPrefix(sent[1], "turn 2:") || !strings.HasPrefix(sent[2], "turn 3:") {
		t.Fatalf("the remote received %q: want turns 1, 2, 3 once each\n%s", sent, got)
	}
	if rec.State != converse.Completed || rec.Limit != converse.LimitMaxTurns || rec.Exchanges != 3 {
		t.Fatalf("record: %s limit %q after %d exchanges\n%s", rec.State, rec.Limit, rec.Exchanges, got)
	}
}

// Controls from other processes reach the orchestrator over the bus:
// manual mode waits for approve, stop ends it; status prints the record.
func TestConverseControlsFromTheCLI(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	p := startConversePair(t, w, 0, nil)
	for _, kv := range converseEnv(w) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "A2ABUS_") {
			t.Setenv(k, v)
		}
	}
	as := w.N("Converse")
	// Refused: neither policy.rules nor --allow opens the pair.
	code, _, errOut := runCLI(t, "converse", "start", "--local", p.local, "--remote", p.remote, "--objective", "x", "--as", as, "--local-skill", "draft", "--remote-skill", "answer")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "forbidden") {
		t.Fatalf("start without permission: exit %d: %s", code, errOut)
	}
	var out testenv.Buffer
	start := exec.Command(bin, "converse", "start", "--local", p.local, "--remote", p.remote, "--remote-skill", "answer",
		"--objective", "check the API", "--allow", "--as", as, "--json")
	start.Env = converseEnv(w)
	start.Stdout, start.Stderr = &out, &out
	if err := start.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = start.Process.Kill() })
	testenv.Eventually(t, "a draft waiting for approval", func() bool { return strings.Contains(out.String(), `"kind":"review"`) },
		testenv.Explain(func() string { return out.String() }))
	id := conversationID(t, out.String())
	if code, _, errOut := runCLI(t, "converse", "approve", id, "--text", "edited text"); code != 0 {
		t.Fatalf("approve: exit %d: %s", code, errOut)
	}
	testenv.Eventually(t, "the edited text sent", func() bool { r := p.received(); return len(r) == 1 && r[0] == "edited text" })
	var status string
	testenv.Eventually(t, "status shows the edited turn", func() bool { // recorded once the remote has it
		code, status, _ = runCLI(t, "converse", "status", id)
		return code == 0 && strings.Contains(status, "[1] local_agent (edited): edited text")
	}, testenv.Explain(func() string { return fmt.Sprintf("exit %d:\n%s", code, status) }))
	if code, _, errOut := runCLI(t, "converse", "stop", id); code != 0 {
		t.Fatalf("stop: exit %d: %s", code, errOut)
	}
	if err := start.Wait(); err != nil {
		t.Fatalf("start after stop: %v\n%s", err, out.String())
	}
	if code, _, errOut := runCLI(t, "converse", "pause", id); code != 1 || !strings.Contains(errOut, "has ended") {
		t.Fatalf("pause after stop: exit %d: %s", code, errOut)
	}
}

// conversationID reads the conversation id from start --json's first event.
func conversationID(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Conversation string `json:"conversation"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Conversation != "" {
			return ev.Conversation
		}
	}
	t.Fatalf("no conversation id in:\n%s", out)
	return ""
}

// TestConverseNegativeFlagIsNamed: a negative limit is refused naming its
// flag, before anything is dialled.
func TestConverseNegativeFlagIsNamed(t *testing.T) {
	isolate(t, "")
	for flag, value := range map[string]string{"--max-turns": "-3", "--max-duration": "-1s", "--max-failures": "-1", "--token-budget": "-5",
		"--local-timeout": "-1s", "--remote-timeout": "-2s", "--history-turns": "-1", "--history-chars": "-1"} {
		code, _, errOut := runCLI(t, "converse", "start", "--local", "A", "--remote", "B", "--objective", "o", flag, value)
		if code != 1 || !strings.Contains(errOut, flag+": must not be negative, got "+value) {
			t.Errorf("%s %s: exit %d: %s", flag, value, code, errOut)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--local-timeout", "90s"}, "--local-timeout: 1m30s is above 1m0s, the bound without tool use (--allow-tool-use allows up to 2m0s)"},
		{[]string{"--local-timeout", "3m", "--allow-tool-use"}, "--local-timeout: 3m0s is above 2m0s, the bound with tool use"},
		{[]string{"--max-shared-calls", "-1"}, "--max-shared-calls: must not be negative, got -1"},
	} {
		args := append([]string{"converse", "start", "--local", "A", "--remote", "B", "--objective", "o"}, c.args...)
		if code, _, errOut := runCLI(t, args...); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
		}
	}
}
