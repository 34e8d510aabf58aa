// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// walk calls f on every command of the tree under root.
func walk(root *cobra.Command, f func(*cobra.Command)) {
	f(root)
	for _, c := range root.Commands() {
		walk(c, f)
	}
}

func TestEveryCommandHasAnExample(t *testing.T) {
	walk(newRootCmd(&bytes.Buffer{}, &bytes.Buffer{}), func(c *cobra.Command) {
		if !c.Hidden && strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no Example", c.CommandPath())
		}
	})
}

// TestEachCommandHasTheDefaultsOfWhatItDoes: commands that talk to other
// processes use the local servers (long-running ones logging JSON at info),
// only demo the embedded ones (cliutil.Profile decides what each means);
// config check and doctor show what applies to the interactive commands.
func TestEachCommandHasTheDefaultsOfWhatItDoes(t *testing.T) {
	want := map[string]cliutil.Profile{
		"a2abus serve": cliutil.Daemon, "a2abus directory": cliutil.Daemon, "a2abus mcp": cliutil.Daemon, "a2abus gateway": cliutil.Daemon,
		"a2abus demo": cliutil.Demo, "a2abus config check": cliutil.Interactive, "a2abus doctor": cliutil.Interactive, "a2abus bench": cliutil.AsConfigured,
	}
	for _, p := range []string{"invoke", "wait", "cancel", "agents", "memory get", "memory list", "conversation show", "history", "topology apply", "chat"} {
		want["a2abus "+p] = cliutil.Interactive
	}
	seen := 0
	walk(newRootCmd(&bytes.Buffer{}, &bytes.Buffer{}), func(c *cobra.Command) {
		if p, ok := want[c.CommandPath()]; ok {
			seen++
			if got := cliutil.ProfileOf(c); got != p {
				t.Errorf("%s: profile %q, want %q", c.CommandPath(), got, p)
			}
		}
	})
	if seen != len(want) {
		t.Errorf("found %d of the %d commands", seen, len(want))
	}
}

// TestTopologyApplyUsesTheLocalBrokerByDefault: with no bus.url, `a2abus
// topology apply` declares on the local RabbitMQ, not on an in-process bus
// that vanishes with it.
func TestTopologyApplyUsesTheLocalBrokerByDefault(t *testing.T) {
	if testenv.AMQPURL(t) != cliutil.LocalAMQPURL {
		t.Skip("the test broker is not the local default")
	}
	isolate(t, "")
	exchange := "test." + strings.ToLower(testworld.Real(t).N("topo"))
	wk := filepath.Join(t.TempDir(), "wk.json")
	if err := os.WriteFile(wk, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", wk)
	t.Setenv("A2ABUS_BUS_EXCHANGE", exchange)
	t.Cleanup(func() {
		conn, err := amqp.Dial(cliutil.LocalAMQPURL)
		if err != nil {
			return
		}
		defer conn.Close()
		if ch, err := conn.Channel(); err == nil {
			_, _ = ch.QueueDelete(exchange+".dead", false, false, false)
			_ = ch.ExchangeDelete(exchange, false, false)
			_ = ch.ExchangeDelete(exchange+".dlx", false, false)
		}
	})
	code, out, errOut := runCLI(t, "topology", "apply")
	if code != 0 || !strings.HasPrefix(out, "bus: RabbitMQ\n") || errOut != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %q", code, out, errOut)
	}
}

// TestUnreachableServerIsOneLine: a server that does not answer is one line
// on stderr naming it (password hidden), its key and its variable, and an
// error object on stdout with --json.
func TestUnreachableServerIsOneLine(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "invoke", "A", "echo", "x", "--amqp-url", "amqp://guest:s3cret@127.0.0.1:1/", "--json")
	want := "a2abus: cannot reach RabbitMQ at amqp://guest:xxxxx@127.0.0.1:1/ (bus.url, A2ABUS_BUS_URL or --amqp-url): "
	if code != 1 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and one line starting %q", code, errOut, want)
	}
	if obj := errorObject(t, out); obj.Code != cliutil.CodeUnreachable || obj.ExitCode != 1 || strings.Contains(out, "s3cret") {
		t.Fatalf("stdout %q", out)
	}
	// Redis: go-redis's own complaint is not printed beside the error.
	t.Setenv("A2ABUS_LOG_LEVEL", "debug")
	code, _, errOut = runCLI(t, "memory", "get", "k", "--redis-url", "redis://127.0.0.1:2/0")
	want = "a2abus: cannot reach Redis at redis://127.0.0.1:2/0 (redis.url, A2ABUS_REDIS_URL or --redis-url): "
	if code != 1 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and one line starting %q", code, errOut, want)
	}
}

type errObj struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	ExitCode int    `json:"exitCode"`
}

// errorObject decodes the --json error object stdout must hold, alone.
func errorObject(t *testing.T, stdout string) errObj {
	t.Helper()
	var v struct {
		Error *errObj `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&v); err != nil || v.Error == nil || dec.More() {
		t.Fatalf("stdout %q is not one error object (%v)", stdout, err)
	}
	return *v.Error
}

// TestRefusalsExitThreeWithAnErrorObject: a call refused before publishing
// exits 3; --json prints its code on stdout; a usage error is USAGE, exit 1.
func TestRefusalsExitThreeWithAnErrorObject(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join("..", "..", "well-known-agents.json"))
	code, out, errOut := runCLI(t, "invoke", "SampleAgent", "translate", "hi", "--directory-wait", "100ms", "--embedded", "--json")
	if obj := errorObject(t, out); code != cliutil.ExitRefused || obj.Code != "SKILL_NOT_SUPPORTED" || obj.ExitCode != 3 ||
		!strings.HasSuffix(errOut, "\na2abus: "+obj.Message+"\n") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "invoke", "SampleAgent", "npv", "x", "--input", `{"cash_flows":"many"}`, "--directory-wait", "100ms", "--embedded", "--json", "--wait")
	if obj := errorObject(t, out); code != cliutil.ExitRefused || obj.Code != "INVALID_INPUT" {
		t.Fatalf("invalid input: exit %d, stdout %q", code, out)
	}
	code, out, _ = runCLI(t, "history", "--json")
	if obj := errorObject(t, out); code != 1 || obj.Code != cliutil.CodeUsage {
		t.Fatalf("usage: exit %d, stdout %q", code, out)
	}
	// A failed task prints its outcome, not an error object after it.
	code, out, _ = runCLI(t, "invoke", "Nobody", "echo", "hi", "--wait", "--timeout", "1s", "--directory-wait", "0", "--embedded", "--json")
	var outcome struct {
		Result struct {
			Error struct{ Code string } `json:"error"`
		} `json:"result"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if code != exitTaskFailed || dec.Decode(&outcome) != nil || outcome.Result.Error.Code != "TIMEOUT" || dec.More() {
		t.Fatalf("failed task: exit %d, stdout %q", code, out)
	}
}

func TestCompletionScripts(t *testing.T) {
	isolate(t, "")
	for sh, want := range map[string]string{"bash": "__start_a2abus", "zsh": "#compdef a2abus", "fish": "complete -c a2abus"} {
		code, out, errOut := runCLI(t, "completion", sh)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, stderr %q, stdout lacks %q", sh, code, errOut, want)
		}
	}
}

// completions returns the candidates of `a2abus __complete args...`.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errOut)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			break // the directive
		}
		name, _, _ := strings.Cut(line, "\t")
		names = append(names, name)
	}
	return names
}

// TestCompletionOfAgentsAndSkills: invoke completes agent names, then the
// named agent's skills, from the directory: well-known agents, and agents
// running now that announce themselves within the bounded wait.
func TestCompletionOfAgentsAndSkills(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join("..", "..", "well-known-agents.json"))
	if got := completions(t, "invoke", "--embedded", "Sa"); strings.Join(got, ",") != "SampleAgent" {
		t.Errorf("agents starting with Sa: %q", got)
	}
	if got := strings.Join(completions(t, "invoke", "--embedded", "sampleagent", ""), ","); got != "echo,sleep,fail,npv,delegate,confirm" {
		t.Errorf("skills of sampleagent: %q", got)
	}
	if got := completions(t, "invoke", "--embedded", "SampleAgent", "echo", ""); len(got) != 0 {
		t.Errorf("the text has no completion: %q", got)
	}
	if got := strings.Join(completions(t, "invoke", "--priority", ""), ","); got != "high,normal,low" {
		t.Errorf("--priority: %q", got)
	}
	// An unreachable bus still offers the well-known agents, at once.
	start := time.Now()
	if got := completions(t, "invoke", "--amqp-url", "amqp://guest:guest@127.0.0.1:1/", "Re"); strings.Join(got, ",") != "ResearchAgent" {
		t.Errorf("with the bus down: %q", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("completion with the bus down took %s", d)
	}

	// A running agent, on the real bus, announces itself in time.
	w := testworld.Real(t)
	name := w.N("Completed")
	t.Setenv("A2ABUS_BUS_URL", w.AMQPURL)
	t.Setenv("A2ABUS_BUS_EXCHANGE", w.Exchange)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "completion test",
		Skills: []a2a.AgentSkill{{ID: "translate", Name: "Translate", Description: "d"}}}, Bus: w.Connect(t)})
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Handle("translate", func(context.Context, *agent.Task) (*agent.Result, error) { return agent.TextResult("ok"), nil })
	go func() { _ = a.Run(ctx) }()
	defer a.Close()
	testenv.Eventually(t, "the running agent offered", func() bool {
		got := completions(t, "invoke", "Completed")
		return strings.Join(got, ",") == name
	})
	if got := strings.Join(completions(t, "invoke", name, ""), ","); got != "translate" {
		t.Errorf("skills of %s: %q", name, got)
	}
	if got := completions(t, "agents", "--skill", "transl"); strings.Join(got, ",") != "translate" {
		t.Errorf("agents --skill: %q", got)
	}
}

// TestInvokeWaitSaysNoAgentConsumesTheQueue: a task waiting in a queue no
// agent consumes is said so on stderr (once, off a terminal).
func TestInvokeWaitSaysNoAgentConsumesTheQueue(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	target := w.N("Unserved")
	useWorld(t, w, map[string]string{"CALLER_NAME": w.N("QueueCli")})
	// The first look at the queue comes 300ms after the publish; the timeout
	// leaves it room on a loaded machine (1.5s did not, once, in CI).
	code, _, errOut := runCLI(t, "invoke", target, "echo", "hi", "--wait", "--timeout", "3s", "--directory-wait", "0")
	want := "queue: waiting in agent.task." + target + ": 0 ahead, no agent running — a KEDA job will start it"
	if code != exitTaskFailed || strings.Count(errOut, want) != 1 {
		t.Fatalf("exit %d, stderr %q; want 2 and one %q", code, errOut, want)
	}
}

func TestQueueNote(t *testing.T) {
	for _, tc := range []struct {
		messages, consumers int
		want                string
	}{
		{4, 0, "waiting in agent.task.X: 3 ahead, no agent running — a KEDA job will start it if one scales this queue"},
		{0, 0, "waiting in agent.task.X: 0 ahead, no agent running — a KEDA job will start it if one scales this queue"},
		{0, 2, ""},
		{5, 1, "waiting in agent.task.X: 5 ready, 1 agent running"},
		{5, 3, "waiting in agent.task.X: 5 ready, 3 agents running"},
	} {
		if got := queueNote("agent.task.X", tc.messages, tc.consumers); got != tc.want {
			t.Errorf("queueNote(%d, %d) = %q, want %q", tc.messages, tc.consumers, got, tc.want)
		}
	}
	if got := waitLeft(9*time.Minute + 12*time.Second); got != "it may wait 9m12s more to be taken, then EXPIRED_IN_QUEUE" {
		t.Errorf("waitLeft = %q", got)
	}
	if got := waitLeft(-time.Second); !strings.Contains(got, "over") {
		t.Errorf("waitLeft past the bound = %q", got)
	}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "0.4s", 12340 * time.Millisecond: "12.3s",
		125 * time.Second: "2m05s", 62 * time.Minute: "1h02m"} {
		if got := elapsed(d); got != want {
			t.Errorf("elapsed(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestProgressOnATerminalShowsTheElapsedTime: the live line is redrawn with
// the time elapsed, then the queue note and the status, and erased at the end.
func TestProgressOnATerminalShowsTheElapsedTime(t *testing.T) {
	t.Setenv("COLUMNS", "200")
	var out testenv.Buffer
	p := newProgressOn(&out, "SampleAgent.sleep", true)
	testenv.Eventually(t, "a redraw after the first", func() bool { return strings.Count(out.String(), "waiting for SampleAgent.sleep") >= 2 },
		testenv.Explain(out.String))
	if !strings.HasPrefix(out.String(), "\r\033[K") || !strings.Contains(out.String(), "s waiting for SampleAgent.sleep") {
		t.Fatalf("no live line with the elapsed time: %q", out.String())
	}
	p.queued("waiting in agent.task.SampleAgent: 2 ahead, no agent running")
	half := 0.5
	p.print(&a2a.TaskStatus{Agent: "SampleAgent", State: a2a.TaskStateWorking, Progress: &half})
	p.close()
	s := out.String()
	if !strings.Contains(s, "· waiting in agent.task.SampleAgent: 2 ahead") || !strings.Contains(s, "SampleAgent working 50%") ||
		!strings.HasSuffix(s, "\r\033[K") || strings.Contains(s, "\n") {
		t.Fatalf("live line: %q", s)
	}
}
