// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm/openai"
	"github.com/a2abus/a2abus/pkg/workflow"
)

func TestMain(m *testing.M) {
	openai.Register() // the Primary, the Orchestrator's router and the LLM agents build the node's model client
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}

// countingAgent counts its executions per skill; its "hold" skill blocks
// until released (or its task ends).
type countingAgent struct {
	mu      sync.Mutex
	runs    map[string]int
	held    chan struct{} // a hold task started
	release chan struct{}
}

func (c *countingAgent) count(skill string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[skill]
}

func startCountingAgent(t *testing.T, w *testworld.World, name string) *countingAgent {
	t.Helper()
	c := &countingAgent{runs: map[string]int{}, held: make(chan struct{}, 4), release: make(chan struct{})}
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "counts", Version: "1",
		Skills: []a2a.AgentSkill{{ID: "one", Name: "one", Description: "d"}, {ID: "hold", Name: "hold", Description: "d"}, {ID: "two", Name: "two", Description: "d"}}},
		Bus: w.Connect(t), Concurrency: 4, AnnounceInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h := func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		c.mu.Lock()
		c.runs[task.Request.Skill]++
		c.mu.Unlock()
		if task.Request.Skill == "hold" {
			c.held <- struct{}{}
			select {
			case <-c.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		res := agent.TextResult(task.Request.Skill + " done")
		res.Confidence = a2a.ConfidenceHigh
		return res, nil
	}
	for _, s := range []string{"one", "hold", "two"} {
		if err := a.Handle(s, h); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, a)
	return c
}

// TestOrchestratorKilledMidWorkflowResumes runs the Orchestrator as a
// separate process (a2abus serve --agent Orchestrator --workflows DIR) on
// the real servers, kill -9s it while step 2 of 3 runs, lets step 2's
// result land while it is down, and restarts it: the redelivered task
// resumes the run, and each step's agent ran exactly once.
func TestOrchestratorKilledMidWorkflowResumes(t *testing.T) {
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	worker, orch := w.N("Counter"), w.N("Orch")
	ag := startCountingAgent(t, w, worker)

	dir := t.TempDir()
	wf := fmt.Sprintf(`
name: three
steps:
  - {id: first, agent: %[1]s, skill: one, text: "1"}
  - {id: second, agent: %[1]s, skill: hold, text: "after ${steps.first.text}", timeout: 90s}
  - {id: third, agent: %[1]s, skill: two, text: "after ${steps.second.text}"}
`, worker)
	if err := os.WriteFile(filepath.Join(dir, "three.yaml"), []byte(wf), 0o600); err != nil {
		t.Fatal(err)
	}
	wellKnown := filepath.Join(t.TempDir(), "well-known-agents.json")
	if err := os.WriteFile(wellKnown, []byte(fmt.Sprintf(`[{"agentName":%q,"description":"counts","version":"1","skills":[`+
		`{"id":"one","name":"one","description":"d"},{"id":"hold","name":"hold","description":"d"},{"id":"two","name":"two","description":"d"}]}]`, worker)), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func() (*exec.Cmd, *testenv.Buffer, chan struct{}) {
		cmd := exec.Command(bin, "serve", "--agent", "Orchestrator", "--name", orch, "--workflows", dir)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "A2ABUS_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL, "A2ABUS_BUS_EXCHANGE="+w.Exchange,
			"A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix, "A2ABUS_LOG_LEVEL=warn", "A2ABUS_DIRECTORY_WELL_KNOWN_FILE="+wellKnown,
			"A2ABUS_DIRECTORY_KNOWN_AGENTS_FILE=", `A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`) // not about the policy
		out := &testenv.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		})
		return cmd, out, done
	}
	first, firstOut, firstDone := start()

	c := callers.Start(t, w, w.N("Client"))
	inv, err := c.Invoke(context.Background(), caller.Request{Target: orch, Skill: "three", Text: "count", Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ag.held:
	case <-time.After(60 * time.Second):
		t.Fatalf("step second never started; orchestrator output:\n%s", firstOut)
	}
	if err := syscall.Kill(-first.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-firstDone
	close(ag.release) // step 2's result lands while the orchestrator is down

	_, secondOut, _ := start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.Wait(ctx, inv.TaskID, nil)
	if err != nil {
		t.Fatalf("wait: %v\norchestrator after restart:\n%s", err, secondOut)
	}
	rep, ok := workflow.ReportFrom(out.Result.Artifacts)
	if !ok || rep.Status != workflow.StatusSuccess || rep.RunID != inv.TaskID {
		j, _ := json.Marshal(out.Result)
		t.Fatalf("outcome %s\norchestrator after restart:\n%s", j, secondOut)
	}
	for skill, want := range map[string]int{"one": 1, "hold": 1, "two": 1} {
		if got := ag.count(skill); got != want {
			t.Errorf("step with skill %s ran %d times, want %d", skill, got, want)
		}
	}
	if s := rep.Steps[1]; s.Attempts != 1 || len(s.TaskIDs) != 1 {
		t.Errorf("second step: %d attempts, tasks %v", s.Attempts, s.TaskIDs)
	}
}
