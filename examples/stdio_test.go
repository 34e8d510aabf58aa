// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package examples_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// The stdio examples served by `a2abus serve --exec` on the real servers:
// greet, count (progress), ask (a call to SampleAgent through the bridge),
// a typed error, then SIGTERM stops the bridge and its process (exit 0).
func TestStdioAgentsOnTheRealServers(t *testing.T) {
	w := testworld.Real(t) // skips without servers (fails under CI=true); cleans up
	bin := testenv.Build(t, "./cmd/a2abus")
	// Deny by default: the test enables exactly what it calls, the tester
	// calling the two stdio agents and they calling the helper (ask).
	py, node := w.N("PythonAgent"), w.N("NodeAgent")
	helper := serveSample(t, w, py, node)
	tester := callers.Start(t, w, w.N("StdioTester"))
	rules := fmt.Sprintf(`[{"caller":%q,"allow":[%q,%q]},{"caller":%q,"allow":[%q]},{"caller":%q,"allow":[%q]}]`,
		w.N("StdioTester"), py, node, py, helper, node, helper)
	for _, tc := range []struct{ name, interpreter, script, from string }{
		{"python", "python3", "python-stdio/agent.py", "Python"},
		{"node", "node", "node-stdio/agent.js", "Node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			interp, err := exec.LookPath(tc.interpreter)
			if err != nil {
				if testenv.InCI() {
					t.Fatalf("%s is needed under CI: %v", tc.interpreter, err)
				}
				t.Skipf("%s not installed: %v", tc.interpreter, err)
			}
			script, err := filepath.Abs(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			name := w.N(tc.from + "Agent")
			stop := serveExec(t, w, bin, "'"+interp+"' '"+script+"'", name, rules)
			call := func(skill, text string, input any) (*caller.Outcome, []float64) {
				t.Helper()
				var raw json.RawMessage
				if input != nil {
					raw, _ = json.Marshal(input)
				}
				var mu sync.Mutex
				var fracs []float64
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				out, err := tester.Call(ctx, caller.Request{Target: name, Skill: skill, Text: text, Input: raw, Timeout: 45 * time.Second},
					func(st *a2a.TaskStatus) {
						mu.Lock()
						defer mu.Unlock()
						if st.Progress != nil {
							fracs = append(fracs, *st.Progress)
						}
					})
				if err != nil {
					t.Fatalf("call %s: %v", skill, err)
				}
				mu.Lock()
				defer mu.Unlock()
				return out, fracs
			}
			// The task may come before the agent runs: it waits in its durable queue.
			if out, _ := call("greet", "Ada", nil); out.Err() != nil || out.Result.Text() != "Hello, Ada! (from "+tc.from+")" ||
				out.Result.Confidence != a2a.ConfidenceHigh {
				t.Fatalf("greet = %+v, %v", out.Result, out.Err())
			}
			out, fracs := call("count", "4", nil)
			if out.Err() != nil || out.Result.Text() != "counted to 4" || len(out.Result.Artifacts) != 1 {
				t.Fatalf("count = %+v, %v", out.Result, out.Err())
			}
			if !slices.Equal(fracs, []float64{0.25, 0.5, 0.75, 1}) {
				t.Errorf("count progress = %v, want [0.25 0.5 0.75 1]", fracs)
			}
			if out, _ := call("count", "many", nil); !strings.Contains(errText(out), "INVALID_INPUT") {
				t.Errorf("count many = %s, want INVALID_INPUT", errText(out))
			}
			out, _ = call("ask", "", map[string]string{"agent": helper, "skill": "echo", "text": "hi from " + tc.from})
			if out.Err() != nil || out.Result.Text() != helper+" answered: hi from "+tc.from {
				t.Fatalf("ask = %+v, %v", out.Result, out.Err())
			}
			if out, _ := call("ask", "", map[string]string{"agent": helper, "skill": "fail", "text": "on purpose"}); !strings.Contains(errText(out), "EXECUTION_FAILED") ||
				!strings.Contains(errText(out), "on purpose") {
				t.Errorf("ask fail = %s, want the helper's EXECUTION_FAILED", errText(out))
			}
			clarify(t, tester, name, tc.from)
			stop()
		})
	}
}

// clarify asks the example's clarify skill to greet Ada: it asks how, gets
// an answer it does not understand and asks again (a second later turn,
// whose history holds the whole exchange), then greets as answered.
func clarify(t *testing.T, tester *caller.Caller, name, from string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tester.Call(ctx, caller.Request{Target: name, Skill: "clarify", Text: "Ada", Timeout: 45 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := out.Question(); q == nil || q.Text != "How shall I greet Ada?" || len(q.Options) != 2 || q.Options[0].ID != "formal" {
		t.Fatalf("clarify = %+v, want the question how to greet Ada with two options", out.Result)
	}
	out, err = tester.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "loudly"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := out.Question(); q == nil || q.Text != "Please answer formal or casual: how shall I greet Ada?" || out.Turn != 1 {
		t.Fatalf("after an answer it does not understand = %+v (turn %d), want the question again", out.Result, out.Turn)
	}
	out, err = tester.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "Formal"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Good day, Ada. (from " + from + ", after 2 question(s))"; out.Err() != nil || out.Result.Text() != want {
		t.Fatalf("clarify answered = %+v, %v; want %q", out.Result, out.Err(), want)
	}
}

func errText(out *caller.Outcome) string {
	if err := out.Err(); err != nil {
		return err.Error()
	}
	return "no error: " + out.Result.Text()
}

// serveSample runs SampleAgent in this process on w, callable by callers,
// and returns its name.
func serveSample(t *testing.T, w *testworld.World, callers ...string) string {
	name := w.N("StdioHelper")
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	for _, c := range callers {
		cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: c, Allow: []string{name}})
	}
	n, err := node.With(cfg, w.Connect(t), keepMemory{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.Agent(sample.Card(name))
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Register(a, nil); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	return name
}

// keepMemory leaves the world's memory open when a node closes.
type keepMemory struct{ memory.Memory }

func (keepMemory) Close() error { return nil }

// serveExec starts `a2abus serve --exec line --name name` on w with the
// policy rules given (JSON); the returned stop sends SIGTERM and wants exit 0.
func serveExec(t *testing.T, w *testworld.World, bin, line, name, rules string) (stop func()) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			env = append(env, kv)
		}
	}
	env = append(env, "A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix, "A2ABUS_LOG_FORMAT=console",
		"A2ABUS_POLICY_RULES="+rules)
	cmd := exec.Command(bin, "serve", "--exec", line, "--name", name)
	cmd.Dir, cmd.Env = t.TempDir(), env
	var out testenv.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("a2abus serve --exec output:\n%s", out.String())
		}
	})
	return func() {
		t.Helper()
		stopped = true
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("a2abus serve --exec after SIGTERM: %v\n%s", err, out.String())
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("a2abus serve --exec did not stop within a minute of SIGTERM\n%s", out.String())
		}
		if !strings.Contains(out.String(), "agent process stopped") || !strings.Contains(out.String(), "host speaks protocol version 1") {
			t.Errorf("the log lacks the process's stderr or its stop:\n%s", out.String())
		}
	}
}
