// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/pkg/caller"
)

type invokeJSON struct {
	TaskID    string               `json:"taskId"`
	MemoryKey string               `json:"memoryKey"`
	SessionID string               `json:"sessionId"`
	Result    *caller.StoredResult `json:"result"`
}

func decode(t *testing.T, out string) invokeJSON {
	t.Helper()
	var v invokeJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return v
}

// TestCrossProcessFlow: SampleAgent in its own process, invoked by the CLI;
// the result is stored with its TTL and the notification turn is appended.
func TestCrossProcessFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	agent := e.w.N("Sample")
	e.start("sample-agent", "--name", agent)
	s := session("flow")
	code, out, errOut := e.run("a2abus", "invoke", agent, "echo", "across processes", "--wait", "--json", "--session", s, "--timeout", "60s")
	if code != 0 {
		t.Fatalf("invoke: exit %d\n%s", code, errOut)
	}
	res := decode(t, out)
	if res.Result == nil || res.Result.Text() != "across processes" {
		t.Fatalf("result: %s", out)
	}
	if want := fmt.Sprintf("session/%s/a2a/%s/%s/result", s, agent, res.TaskID); res.MemoryKey != want {
		t.Fatalf("memory key %q, want %q", res.MemoryKey, want)
	}
	ttl, err := e.w.Memory.TTL(context.Background(), res.MemoryKey)
	if err != nil || ttl < 59*time.Minute || ttl > time.Hour {
		t.Fatalf("TTL of the stored result = %v, %v; want about 60m", ttl, err)
	}
	turns := e.turns(s)
	if len(turns) != 1 || !strings.Contains(turns[0].Content, "completed task "+res.TaskID) || !strings.Contains(turns[0].Content, res.MemoryKey) {
		t.Fatalf("turns: %+v", turns)
	}
	// The CLI reads the same memory back.
	code, out, _ = e.run("a2abus", "memory", "get", res.MemoryKey)
	if code != 0 || !strings.Contains(out, "across processes") {
		t.Fatalf("memory get: exit %d: %s", code, out)
	}
	// npv with structured input, and a failing skill's exit code.
	code, out, _ = e.run("a2abus", "invoke", agent, "npv", "npv please", "--input", `{"cash_flows":[-100,60,60],"discount_rate":0.1}`, "--wait", "--json")
	if code != 0 || !strings.Contains(out, `"npv"`) {
		t.Fatalf("npv: exit %d: %s", code, out)
	}
	code, _, errOut = e.run("a2abus", "invoke", agent, "fail", "on purpose", "--wait")
	if code != 2 || !strings.Contains(errOut, "EXECUTION_FAILED") {
		t.Fatalf("fail: exit %d: %s", code, errOut)
	}
}

// TestOneShotAgentLikeKEDA: a task for ResearchAgent is invoked while no
// instance runs; the one-shot agent started later completes it and exits 0;
// a caller process started after that stores and notifies the result.
func TestOneShotAgentLikeKEDA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	agent := e.w.N("Research")
	e.known(agent) // a KEDA-scaled agent is listed in the well-known file
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "keda.md"), []byte("# KEDA\n\nKEDA scales jobs from queue length: a ScaledJob starts one pod per waiting task.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := session("keda")
	code, out, errOut := e.run("a2abus", "invoke", agent, "research", "how does KEDA scale jobs", "--json", "--session", s, "--timeout", "2m")
	if code != 0 {
		t.Fatalf("invoke: exit %d: %s", code, errOut)
	}
	inv := decode(t, out)
	job := e.start("research-agent", "--name", agent, "--docs", docs)
	if code := job.wait(t, time.Minute); code != 0 {
		t.Fatalf("one-shot agent exit %d\n%s", code, job.stderr)
	}
	code, out, errOut = e.run("a2abus", "wait", inv.TaskID, "--json")
	if code != 0 {
		t.Fatalf("wait: exit %d: %s", code, errOut)
	}
	res := decode(t, out)
	if res.Result == nil || len(res.Result.Artifacts) == 0 || !strings.Contains(out, "keda.md") {
		t.Fatalf("research result: %s", out)
	}
	if turns := e.turns(s); len(turns) != 1 {
		t.Fatalf("turns: %+v", turns)
	}
}

// TestAgentKilledMidTask: kill -9 of the agent running a task; the task is
// redelivered to a new instance and completed; the caller is notified once.
func TestAgentKilledMidTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	agent := e.w.N("Sample")
	first := e.start("sample-agent", "--name", agent)
	s := session("kill")
	call := e.start("a2abus", "invoke", agent, "sleep", "1500", "--wait", "--json", "--session", s, "--timeout", "2m")
	eventually(t, "the task to start", func() bool { return strings.Contains(call.stderr.String(), "working") })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	e.start("sample-agent", "--name", agent)
	if code := call.wait(t, time.Minute); code != 0 {
		t.Fatalf("invoke: exit %d\n%s", code, call.stderr)
	}
	res := decode(t, call.stdout.String())
	if res.Result == nil || res.Result.Failed() {
		t.Fatalf("result: %s", call.stdout)
	}
	// The invoke process has exited, and it alone consumed the caller's
	// responses: every notification it would ever write is written.
	if turns := e.turns(s); len(turns) != 1 {
		t.Fatalf("%d notification turns, want 1: %+v", len(turns), turns)
	}
}

// TestPoisonTaskEndsInTheDeadQueue: with one attempt allowed, a task whose
// agent is killed is not run again: the next instance answers
// EXECUTION_FAILED at once and dead-letters it.
func TestPoisonTaskEndsInTheDeadQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.extra = []string{"A2ABUS_BUS_MAX_ATTEMPTS=1"}
	agent := e.w.N("Sample")
	first := e.start("sample-agent", "--name", agent)
	call := e.start("a2abus", "invoke", agent, "sleep", "60000", "--wait", "--timeout", "2m")
	eventually(t, "the task to start", func() bool { return strings.Contains(call.stderr.String(), "working") })
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	e.start("sample-agent", "--name", agent)
	if code := call.wait(t, time.Minute); code != 2 || !strings.Contains(call.stderr.String(), "EXECUTION_FAILED") ||
		!strings.Contains(call.stderr.String(), "gave up after 1 delivery attempts") {
		t.Fatalf("invoke: exit %d\n%s", code, call.stderr)
	}
	conn, err := amqp.Dial(e.w.AMQPURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the task in the dead-letter queue", func() bool {
		q, err := ch.QueueDeclarePassive(e.w.Exchange+".dead", true, false, false, false, nil)
		return err == nil && q.Messages == 1
	})
}

// TestCallerRestartedBetweenInvokeAndResult: the invoking process exits
// before the result exists; a later caller process of the same name stores
// and notifies it.
func TestCallerRestartedBetweenInvokeAndResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	agent := e.w.N("Sample")
	e.known(agent)
	s := session("restart")
	code, out, errOut := e.run("a2abus", "invoke", agent, "echo", "while you were away", "--json", "--session", s)
	if code != 0 {
		t.Fatalf("invoke: exit %d: %s", code, errOut)
	}
	inv := decode(t, out)
	e.start("sample-agent", "--name", agent)
	code, out, errOut = e.run("a2abus", "wait", inv.TaskID, "--json")
	if code != 0 || decode(t, out).Result.Text() != "while you were away" {
		t.Fatalf("wait: exit %d: %s %s", code, out, errOut)
	}
	if turns := e.turns(s); len(turns) != 1 {
		t.Fatalf("turns: %+v", turns)
	}
}

// TestTwentyCLIProcessesShareACallerName: twenty CLI processes with one
// caller name wait at once; each finishes with its own result, whichever
// process consumed it, and the session holds twenty distinct results.
func TestTwentyCLIProcessesShareACallerName(t *testing.T) {
	e := newEnv(t)
	agent := e.w.N("Sample")
	e.start("sample-agent", "--name", agent)
	s := session("twenty")
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("message %d", i)
			// Twenty processes start at once, each asking the agent to announce
			// itself: give it longer than the default second to answer them all.
			// The processes share the caller's in-flight limit (limits.shared):
			// room for all twenty, as this is not about the limit.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			code, out, errOut := runWithEnv(ctx, e, e.environ("A2ABUS_LIMITS_MAX_IN_FLIGHT=20"), "a2abus", "invoke", agent, "echo", text,
				"--wait", "--json", "--session", s, "--timeout", "2m", "--directory-wait", "30s")
			if code != 0 {
				t.Errorf("process %d: exit %d: %s", i, code, errOut)
				return
			}
			if got := decode(t, out).Result.Text(); got != text {
				t.Errorf("process %d got %q, want %q", i, got, text)
			}
		}()
	}
	wg.Wait()
	keys, err := e.w.Memory.List(context.Background(), "session/"+s+"/a2a/"+agent+"/")
	if err != nil || len(keys) != n {
		t.Fatalf("%d stored results (%v), want %d", len(keys), err, n)
	}
	if turns := e.turns(s); len(turns) != n {
		t.Fatalf("%d notifications, want %d", len(turns), n)
	}
}

// TestDemoRunsWithoutServers: the main job needs neither RabbitMQ nor Redis.
func TestDemoRunsWithoutServers(t *testing.T) {
	t.Parallel()
	// Run from the repository root, where the default docs folder is.
	e := &env{t: t, bin: build(t), dir: filepath.Join("..", "..")}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			env = append(env, kv)
		}
	}
	// Unreachable servers must not matter: the demo uses the embedded ones.
	env = append(env, "A2ABUS_LOG_LEVEL=warn")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, out, errOut := runWithEnv(ctx, e, env, "a2abus", "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"[Agent 'SampleAgent' completed", "[Agent 'ResearchAgent' completed", "session/", "get_from_working_memory", "code=TIMEOUT",
		"code=INVALID_INPUT", "/discount_rate", "call history", "SUCCESS", "TIMEOUT"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestAgentsListsRunningAndWellKnownAgents: `a2abus agents` asks running
// agents to announce and lists them online beside the well-known ones; once
// an agent has stopped gracefully, nothing answers for it any more.
func TestAgentsListsRunningAndWellKnownAgents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wellKnown, running := e.w.N("Keda"), e.w.N("Sample")
	e.known(wellKnown)
	agent := e.start("sample-agent", "--name", running)
	var entries []struct {
		Name      string `json:"name"`
		Status    string `json:"status"`
		Instances []struct {
			ID string `json:"id"`
		} `json:"instances"`
		Card struct {
			Skills []struct {
				ID string `json:"id"`
			} `json:"skills"`
		} `json:"card"`
	}
	byName := func() map[string]int {
		m := map[string]int{}
		for i, en := range entries {
			m[en.Name] = i
		}
		return m
	}
	eventually(t, "the running agent listed online", func() bool {
		code, out, _ := e.run("a2abus", "agents", "--json", "--wait", "1s")
		if code != 0 || json.Unmarshal([]byte(out), &entries) != nil {
			return false
		}
		i, ok := byName()[running]
		return ok && entries[i].Status == "online"
	})
	idx := byName()
	if i, ok := idx[wellKnown]; !ok || entries[i].Status != "well-known" {
		t.Fatalf("well-known agent: %+v", entries)
	}
	if r := entries[idx[running]]; len(r.Instances) != 1 || len(r.Card.Skills) != len(sample.Card(running).Skills) {
		t.Fatalf("running agent: %+v", r)
	}
	code, out, _ := e.run("a2abus", "agents", "--skill", "npv", "--wait", "1s")
	if code != 0 || !strings.Contains(out, running) || strings.Contains(out, wellKnown) {
		t.Fatalf("agents --skill npv: exit %d\n%s", code, out)
	}
	// A graceful stop deregisters: the next listing shows the agent offline.
	if err := agent.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := agent.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("sample-agent exit %d: %s", code, agent.stderr)
	}
	code, out, _ = e.run("a2abus", "agents", "--json", "--wait", "500ms")
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil {
		t.Fatalf("agents: exit %d: %s", code, out)
	}
	if _, listed := byName()[running]; listed {
		t.Fatalf("a stopped agent is listed by a fresh directory: %s", out)
	}
}

// TestCancelFromTheCLI: `a2abus cancel` stops a running task; the waiting
// invoke ends with CANCELED (exit 2) long before the task's 60s sleep.
func TestCancelFromTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	agent := e.w.N("Sample")
	e.start("sample-agent", "--name", agent)
	s := session("cancel")
	call := e.start("a2abus", "invoke", agent, "sleep", "60000", "--wait", "--json", "--session", s, "--timeout", "2m")
	eventually(t, "the task to start", func() bool { return strings.Contains(call.stderr.String(), "working") })
	var taskID string
	eventually(t, "the task's record in working memory", func() bool {
		recs, err := e.w.Memory.List(context.Background(), "a2a/tasks/"+e.caller+"/")
		if err == nil && len(recs) == 1 {
			taskID = recs[0][strings.LastIndex(recs[0], "/")+1:]
		}
		return taskID != ""
	})
	code, out, errOut := e.run("a2abus", "cancel", taskID)
	if code != 0 || !strings.Contains(out, "cancel of task "+taskID+" sent") {
		t.Fatalf("cancel: exit %d: %s %s", code, out, errOut)
	}
	if code := call.wait(t, 30*time.Second); code != 2 || !strings.Contains(call.stderr.String(), "CANCELED") {
		t.Fatalf("invoke after cancel: exit %d\n%s", code, call.stderr)
	}
}
