package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestWorkflowRunFileAndShow drives `a2abus workflow run FILE` and
// `workflow show RUN` against an agent on the real servers: exit 0 for
// SUCCESS, 4 for PARTIAL (the warning names the step), 2 for ERROR (the
// failed step named), and show prints the stored run.
func TestWorkflowRunFileAndShow(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, callerName := w.N("WfAgent"), w.N("WfCli")
	known := filepath.Join(t.TempDir(), "known.json")
	if err := os.WriteFile(known, []byte(fmt.Sprintf(`[{"agentName":%q,"description":"d","version":"1","skills":[{"id":"echo","name":"e","description":"d"},{"id":"fail","name":"f","description":"d"}]}]`, agentName)), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"BUS_URL": w.AMQPURL, "BUS_EXCHANGE": w.Exchange, "REDIS_URL": w.RedisURL,
		"REDIS_KEY_PREFIX": w.KeyPrefix, "CALLER_NAME": callerName, "LOG_LEVEL": "warn", "DIRECTORY_WELL_KNOWN_FILE": known} {
		t.Setenv("A2ABUS_"+k, v)
	}
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: agentName}, Bus: w.Connect(t)})
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult("echo: " + task.Text()), nil
	})
	_ = a.Handle("fail", func(_ context.Context, task *agent.Task) (*agent.Result, error) { return nil, errors.New("broken") })
	testworld.Start(t, a)

	dir := t.TempDir()
	write := func(name, optional string) string {
		p := filepath.Join(dir, name+".yaml")
		src := fmt.Sprintf("name: %s\nsteps:\n  - {id: hello, agent: %s, skill: echo, text: \"hi ${input.who}\"}\n  - {id: bad, agent: %s, skill: fail, text: x, optional: %s}\n", name, agentName, agentName, optional)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	code, out, errOut := runCLI(t, "workflow", "run", write("partial", "true"), "--input", `{"who":"bob"}`, "--json")
	var rep workflow.Report
	if code != exitPartial || json.Unmarshal([]byte(out), &rep) != nil || rep.Status != workflow.StatusPartial ||
		!strings.Contains(errOut, "step bad") || rep.Steps[0].Output.Text != "echo: hi bob" {
		t.Fatalf("partial: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "workflow", "show", rep.RunID)
	if code != 0 || !strings.Contains(out, "PARTIAL") || !strings.Contains(out, "1. hello") || !strings.Contains(out, "2. bad") || !strings.Contains(out, "failed") {
		t.Fatalf("show: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "workflow", "run", write("failing", "false"), "--input", `{"who":"al"}`)
	if code != exitTaskFailed || !strings.Contains(errOut, "ERROR at bad") || !strings.Contains(out, "Failed: bad") {
		t.Fatalf("error: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "workflow", "show", "no-such-run")
	if code != 1 || !strings.Contains(errOut, "unknown run") {
		t.Fatalf("unknown run: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "workflow", "run", write("partial", "true"), "--input", `[1]`)
	if code != 1 || !strings.Contains(errOut, "not a JSON object") {
		t.Fatalf("bad input: exit %d: %s", code, errOut)
	}
}
