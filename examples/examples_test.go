// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package examples_test builds the example programs and runs them against
// the real RabbitMQ and Redis, under a private exchange and key prefix.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// runCaller runs go-caller with args to completion (bounded) and returns
// its exit status and standard output.
func runCaller(t *testing.T, bin, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatalf("go-caller: %v", err)
	}
	if stderr.Len() > 0 {
		t.Logf("go-caller %v stderr: %s", args, &stderr)
	}
	return cmd.ProcessState.ExitCode(), stdout.String()
}

// go-agent serves greet; go-caller calls it, prints the greeting and the
// memory key and exits 0 (2 for a task the skill refuses); SIGTERM stops the
// agent with exit 0.
func TestAgentAndCallerOnTheRealServers(t *testing.T) {
	w := testworld.Real(t) // skips without servers (fails under CI=true); cleans up
	agentBin, callerBin := testenv.Build(t, "./examples/go-agent"), testenv.Build(t, "./examples/go-caller")
	workDir := t.TempDir()                                   // the programs' working directory: no a2abus.yaml there
	agentName, callerName := w.N("Greeter"), w.N("ExCaller") // queues removed at cleanup

	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			env = append(env, kv)
		}
	}
	env = append(env, "A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix,
		"A2ABUS_CALLER_NAME="+callerName, "A2ABUS_LOG_LEVEL=info", "A2ABUS_LOG_FORMAT=console",
		// Deny by default: exactly the one call the example makes.
		fmt.Sprintf(`A2ABUS_POLICY_RULES=[{"caller":%q,"allow":[%q]}]`, callerName, agentName))

	agent := exec.Command(agentBin, "-name", agentName)
	agent.Dir, agent.Env = workDir, env
	var agentOut testenv.Buffer
	agent.Stdout, agent.Stderr = &agentOut, &agentOut
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- agent.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = agent.Process.Kill()
			<-exited
		}
	})
	testenv.Eventually(t, "go-agent running", func() bool { return strings.Contains(agentOut.String(), "agent running") },
		testenv.Within(30*time.Second), testenv.Explain(agentOut.String))

	// The task waits in the agent's durable queue if the agent is not consuming yet.
	code, stdout := runCaller(t, callerBin, workDir, env, "-agent", agentName, "-who", "Ada", "-timeout", "60s")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 2 || lines[0] != "Hello, Ada! (from "+agentName+")" ||
		!strings.HasPrefix(lines[1], "memory key: session/") || !strings.Contains(lines[1], "/a2a/"+agentName+"/") {
		t.Fatalf("go-caller exited %d and printed %q\nagent: %s", code, stdout, agentOut.String())
	}
	// A blank name is refused by the skill: the task fails, exit status 2.
	if code, stdout := runCaller(t, callerBin, workDir, env, "-agent", agentName, "-who", " ", "-timeout", "60s"); code != 2 ||
		!strings.Contains(stdout, "failed: INVALID_INPUT: say whom to greet") {
		t.Fatalf("go-caller -who ' ' exited %d and printed %q", code, stdout)
	}

	if err := agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped = true
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("go-agent after SIGTERM: %v\n%s", err, agentOut.String())
		}
	case <-time.After(time.Minute):
		_ = agent.Process.Kill()
		<-exited
		t.Fatalf("go-agent did not stop within a minute of SIGTERM\n%s", agentOut.String())
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}
