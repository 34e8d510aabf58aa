// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/execbridge"
	"github.com/a2abus/a2abus/pkg/node"
)

// keepOpen leaves the world's memory open when a node closes.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

// rig is a world with the test child served as an agent, a SampleAgent
// for its calls, and a caller.
type rig struct {
	t      *testing.T
	w      *testworld.World
	name   string // the bridged agent
	helper string // SampleAgent
	tester *caller.Caller
	logs   *observer.ObservedLogs
}

func testConfig(w *testworld.World) *config.Config {
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Agent.Concurrency = 4
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy (policy.default stays deny)
	cfg.Agent.StopTimeout = 5 * time.Second
	return cfg
}

// childCommand runs this test binary as the agent process in mode.
func childCommand(t *testing.T, mode string) execbridge.Options {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return execbridge.Options{Command: "'" + exe + "'", Env: append(os.Environ(), childEnv+"="+mode)}
}

// serveBridge serves opts under a unique name until the test ends, which
// must then stop cleanly.
func serveBridge(t *testing.T, w *testworld.World, opts execbridge.Options) (string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	opts.Name, opts.Logger = w.N("Exec"), log
	opts.MinBackoff = 20 * time.Millisecond
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.With(testConfig(w), w.Connect(t), keepOpen{w.Memory}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- node.ServeOn(ctx, n, b.Build) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeOn = %v, want a clean stop", err)
		}
	})
	return opts.Name, logs
}

func newRig(t *testing.T, w *testworld.World) *rig {
	name, logs := serveBridge(t, w, childCommand(t, "card"))
	r := &rig{t: t, w: w, name: name, logs: logs, tester: callers.Start(t, w, w.N("Tester"))}
	// SampleAgent, the target of the child's calls.
	r.helper = w.N("Helper")
	n, err := node.With(testConfig(w), w.Connect(t), keepOpen{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := n.Agent(sample.Card(r.helper))
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Register(a, nil); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	return r
}

// call calls skill of the bridged agent and returns the outcome and the
// status updates seen.
func (r *rig) call(skill, text string, input any, session string) (*caller.Outcome, []*a2a.TaskStatus) {
	r.t.Helper()
	var raw json.RawMessage
	if input != nil {
		raw, _ = json.Marshal(input)
	}
	var mu sync.Mutex
	var seen []*a2a.TaskStatus
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := r.tester.Call(ctx, caller.Request{Target: r.name, Skill: skill, Text: text, Input: raw, SessionID: session, Timeout: 20 * time.Second},
		func(st *a2a.TaskStatus) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, st)
		})
	if err != nil {
		r.t.Fatalf("call %s: %v", skill, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out, seen
}

// logged reports whether an entry with message msg has a field equal to want.
func logged(logs *observer.ObservedLogs, msg, field, want string) bool {
	for _, e := range logs.FilterMessage(msg).All() {
		if v, ok := e.ContextMap()[field]; ok && strings.Contains(toString(v), want) {
			return true
		}
	}
	return false
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func wantCode(t *testing.T, out *caller.Outcome, code a2a.ErrorCode, msg string) {
	t.Helper()
	err := out.Err()
	var typed *a2a.Error
	if !errors.As(err, &typed) || typed.Code != code || !strings.Contains(typed.Message, msg) {
		t.Fatalf("outcome error = %v, want %s containing %q", err, code, msg)
	}
}

func TestRoundTripProgressAndTypedError(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		out, _ := r.call("echo", "hello, child", nil, "")
		if err := out.Err(); err != nil || out.Result.Text() != "hello, child" {
			t.Fatalf("echo = %+v, %v; want the text back", out.Result, err)
		}
		out, seen := r.call("progress", "go", nil, "")
		if err := out.Err(); err != nil {
			t.Fatal(err)
		}
		res := out.Result
		if res.Text() != "done" || res.Status != a2a.StatusPartial || res.Confidence != a2a.ConfidenceHigh || !slices.Equal(res.Warnings, []string{"just a test"}) {
			t.Errorf("progress result = %+v, want done, PARTIAL, HIGH, one warning", res)
		}
		if len(res.Artifacts) != 1 || !strings.Contains(toString(res.Artifacts[0]), `"n":2`) {
			t.Errorf("artifacts = %s, want the data {\"n\":2}", toString(res.Artifacts))
		}
		var fracs []float64
		for _, st := range seen {
			if st.Progress != nil && strings.HasPrefix(a2a.MessageText(st.Message), "at ") {
				fracs = append(fracs, *st.Progress)
			}
		}
		if !slices.Equal(fracs, []float64{0.25, 0.75}) {
			t.Errorf("progress fractions = %v, want [0.25 0.75]", fracs)
		}
		out, _ = r.call("fail", "bad order", nil, "")
		wantCode(t, out, a2a.CodeInvalidInput, "no good: bad order")
		if !logged(r.logs, "agent stderr", "line", "child starting") {
			t.Error("the child's stderr line is not in the log")
		}
	})
}

func TestCancelReachesTheChild(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		ctx := context.Background()
		inv, watch, err := r.tester.InvokeWatched(ctx, caller.Request{Target: r.name, Skill: "sleep", Text: "z", Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close()
		sleeping := make(chan struct{})
		var once sync.Once
		waited := make(chan *caller.Outcome, 1)
		go func() {
			out, err := watch.Wait(ctx, func(st *a2a.TaskStatus) {
				if a2a.MessageText(st.Message) == "sleeping" {
					once.Do(func() { close(sleeping) })
				}
			})
			if err != nil {
				t.Error(err)
			}
			waited <- out
		}()
		select {
		case <-sleeping:
		case <-time.After(15 * time.Second):
			t.Fatal("the child never reported it was sleeping")
		}
		if err := r.tester.Cancel(ctx, inv.TaskID); err != nil {
			t.Fatal(err)
		}
		out := <-waited
		wantCode(t, out, a2a.CodeCanceled, "")
		testenv.Eventually(t, "the child logs the task.cancel it received", func() bool {
			return logged(r.logs, "agent stderr", "line", "cancel received for "+inv.TaskID)
		})
	})
}

func TestInvokeInheritsTheTask(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		session := uuid.NewString()
		out, _ := r.call("call", "x", map[string]string{"agent": r.helper, "skill": "echo", "text": "from the child"}, session)
		if err := out.Err(); err != nil {
			t.Fatal(err)
		}
		if got := out.Result.Text(); !strings.HasPrefix(got, r.helper+` said "from the child"`) {
			t.Fatalf("call = %q, want the helper's echo", got)
		}
		hist, err := caller.History(context.Background(), w.Memory, session)
		if err != nil {
			t.Fatal(err)
		}
		var sub *caller.HistoryEntry
		for i := range hist {
			if hist[i].Target == r.helper {
				sub = &hist[i]
			}
		}
		if sub == nil {
			t.Fatalf("no call to %s in session %s: %+v", r.helper, session, hist)
		}
		if sub.Caller != r.name || !slices.Equal(sub.Chain, []string{r.tester.Name(), r.name}) || sub.Status != string(a2a.StatusSuccess) {
			t.Errorf("nested call = %+v, want caller %s, chain [%s %s], SUCCESS", sub, r.name, r.tester.Name(), r.name)
		}
		// A call the chain forbids comes back as a typed error: the child calls its own caller's caller... itself.
		out, _ = r.call("call", "x", map[string]string{"agent": r.name, "skill": "echo", "text": "me again"}, session)
		wantCode(t, out, a2a.CodeCycleDetected, "")
	})
}

func TestProtocolViolationsAreIgnored(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		out, _ := r.call("junk", "x", nil, "")
		if err := out.Err(); err != nil || out.Result.Text() != "survived" {
			t.Fatalf("junk = %+v, %v; want survived", out.Result, err)
		}
		for _, what := range []string{"not a JSON object", "no \"type\" field", "unknown type", "unknown request_id"} {
			testenv.Eventually(t, "a protocol violation logged: "+what, func() bool {
				return logged(r.logs, "protocol violation: line ignored", "what", what)
			})
		}
		// The one result after the result is for a request that ended.
		testenv.Eventually(t, "the second task.result is a violation", func() bool {
			return len(r.logs.FilterMessage("protocol violation: line ignored").FilterField(zap.String("type", "task.result")).All()) >= 2
		})
		if out, _ := r.call("echo", "still here", nil, ""); out.Err() != nil || out.Result.Text() != "still here" {
			t.Fatalf("echo after junk = %+v", out.Result)
		}
	})
}

func TestCrashFailsTasksAndRestarts(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		out, _ := r.call("crash", "x", nil, "")
		wantCode(t, out, a2a.CodeExecutionFailed, "exited (exit status 3)")
		wantCode(t, out, a2a.CodeExecutionFailed, "crashing on purpose")
		// The next task waits for the restarted process and is served.
		out, _ = r.call("echo", "after the crash", nil, "")
		if err := out.Err(); err != nil || out.Result.Text() != "after the crash" {
			t.Fatalf("echo after crash = %+v, %v", out.Result, err)
		}
		if len(r.logs.FilterMessage("agent process exited: restarting it").All()) != 1 || len(r.logs.FilterMessage("agent process restarted").All()) != 1 {
			t.Errorf("want one restart logged, got:\n%v", r.logs.All())
		}
	})
}

func TestRequestsAreMultiplexed(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w)
		// The child answers gate requests only once 3 of them run at once.
		var wg sync.WaitGroup
		outs := make([]*caller.Outcome, 3)
		for i := range outs {
			wg.Go(func() { outs[i], _ = r.call("gate", "", 3, "") })
		}
		wg.Wait()
		for i, out := range outs {
			if err := out.Err(); err != nil || out.Result.Text() != "3 at once" {
				t.Errorf("gate %d = %+v, %v; want 3 at once", i, out.Result, err)
			}
		}
	})
}
