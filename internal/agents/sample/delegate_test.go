// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// delegation is a SampleAgent that can delegate, a Helper sample agent, a
// Probe that reports the request it received, and a Tester caller.
type delegation struct {
	w      *world
	tester *caller.Caller
}

func newDelegation(t *testing.T) *delegation {
	w := newWorld(t)
	w.sample(DefaultName, true)
	w.sample("Helper", false)
	probe, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: "Probe"}, Bus: w.Connect(w.t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Handle("whoami", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		b, err := json.Marshal(probeReport{Chain: task.Request.CallChain, Session: task.Request.SessionID,
			Correlation: task.Request.CorrelationID, Caller: task.Request.Caller, Deadline: task.Request.Deadline})
		return agent.TextResult(string(b)), err
	}); err != nil {
		t.Fatal(err)
	}
	w.run(probe)
	return &delegation{w: w, tester: w.caller("Tester")}
}

type probeReport struct {
	Chain       []string  `json:"chain"`
	Session     string    `json:"session"`
	Correlation string    `json:"correlation"`
	Caller      string    `json:"caller"`
	Deadline    time.Time `json:"deadline"`
}

// delegate calls SampleAgent's delegate skill with input.
func (d *delegation) delegate(t *testing.T, input map[string]any, mod ...func(*caller.Request)) *caller.Outcome {
	t.Helper()
	req := caller.Request{Target: DefaultName, Skill: SkillDelegate, Input: mustJSON(t, input), Timeout: 10 * time.Second}
	for _, m := range mod {
		m(&req)
	}
	out, _ := call(t, d.tester, req)
	return out
}

func TestDelegateReturnsTheSubResult(t *testing.T) {
	d := newDelegation(t)
	out := d.delegate(t, map[string]any{"agent": "Helper", "skill": "echo", "text": "hi from afar"})
	wantText(t, out, "hi from afar")
	if got := out.Result.Metadata.Extra["delegatedTo"]; got != "Helper" {
		t.Errorf("metadata delegatedTo = %v, want Helper", got)
	}

	// Structured input and artifacts pass through.
	out = d.delegate(t, map[string]any{"agent": "Helper", "skill": "npv", "input": map[string]any{"cash_flows": []float64{-100, 121}, "discount_rate": 0.1}})
	var got NPVResult
	decodeData(t, out.Result.Artifacts, &got)
	if got.NPV < 9.999 || got.NPV > 10.001 {
		t.Errorf("delegated npv = %+v, want 10", got)
	}
}

func TestDelegatePropagatesSubErrors(t *testing.T) {
	d := newDelegation(t)
	out := d.delegate(t, map[string]any{"agent": "Helper", "skill": "npv", "input": map[string]any{"cash_flows": []float64{}, "discount_rate": 0.1}})
	wantCode(t, out, a2a.CodeInvalidInput, `/cash_flows: minItems`)

	out = d.delegate(t, map[string]any{"agent": "Helper", "skill": "fail", "text": "boom"})
	wantCode(t, out, a2a.CodeExecutionFailed)
	if out.Result.Error.Message != "boom" {
		t.Errorf("message %q, want the sub-task's", out.Result.Error.Message)
	}

	out = d.delegate(t, map[string]any{"agent": "Helper", "skill": "nope", "text": "x"})
	wantCode(t, out, a2a.CodeSkillNotSupported, "nope")
}

func TestDelegatePassesSessionCorrelationChainAndDeadline(t *testing.T) {
	d := newDelegation(t)
	inv, err := d.tester.Invoke(testCtx(t), caller.Request{Target: DefaultName, Skill: SkillDelegate, SessionID: "session-7", CorrelationID: "workflow-3",
		Timeout: 10 * time.Second, Input: mustJSON(t, map[string]any{"agent": "Probe", "skill": "whoami", "text": "who?"})})
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.tester.Wait(testCtx(t), inv.TaskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	var got probeReport
	if err := json.Unmarshal([]byte(out.Result.Text()), &got); err != nil {
		t.Fatalf("probe report %q: %v", out.Result.Text(), err)
	}
	if !slices.Equal(got.Chain, []string{"Tester", DefaultName}) || got.Caller != DefaultName {
		t.Errorf("chain %v caller %q, want [Tester %s] from %s", got.Chain, got.Caller, DefaultName, DefaultName)
	}
	if got.Session != "session-7" || got.Correlation != "workflow-3" {
		t.Errorf("session %q correlation %q, want session-7 workflow-3", got.Session, got.Correlation)
	}
	if !got.Deadline.Before(inv.Deadline) || got.Deadline.Before(inv.Deadline.Add(-time.Second)) {
		t.Errorf("sub-task deadline %s, want just before the task's %s", got.Deadline, inv.Deadline)
	}
}

func TestDelegateRefusesBadCalls(t *testing.T) {
	d := newDelegation(t)
	for _, tc := range []struct {
		name  string
		input map[string]any
		code  a2a.ErrorCode
		want  string
	}{
		{"no agent", map[string]any{"skill": "echo", "text": "x"}, a2a.CodeInvalidInput, `"agent"`},
		{"bad agent name", map[string]any{"agent": "a.b", "skill": "echo", "text": "x"}, a2a.CodeInvalidInput, `"agent"`},
		{"no skill", map[string]any{"agent": "Helper", "text": "x"}, a2a.CodeInvalidInput, `"skill"`},
		{"no text nor input", map[string]any{"agent": "Helper", "skill": "echo", "input": nil}, a2a.CodeInvalidInput, `"text"`},
		{"itself", map[string]any{"agent": "sampleagent", "skill": "echo", "text": "x"}, a2a.CodeCycleDetected, "may not call itself"},
		{"back to its caller", map[string]any{"agent": "Tester", "skill": "echo", "text": "x"}, a2a.CodeCycleDetected, "cycle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, d.delegate(t, tc.input), tc.code, tc.want)
		})
	}
}

func TestDelegateWithoutCaller(t *testing.T) {
	w := newWorld(t)
	w.sample("Lonely", false)
	out, _ := call(t, w.caller("Tester"), caller.Request{Target: "Lonely", Skill: SkillDelegate,
		Input: mustJSON(t, map[string]any{"agent": "Helper", "skill": "echo", "text": "x"})})
	wantCode(t, out, a2a.CodeExecutionFailed, "delegation is not configured")
}

func TestDelegateTimesOutWithItsDeadline(t *testing.T) {
	d := newDelegation(t)
	out := d.delegate(t, map[string]any{"agent": "Helper", "skill": "sleep", "text": "60000"},
		func(r *caller.Request) { r.Timeout = time.Second })
	wantCode(t, out, a2a.CodeTimeout)
}

func TestDelegateCancelsTheSubTask(t *testing.T) {
	d := newDelegation(t)
	ctx := testCtx(t)
	// Call registers its waiter before it publishes, so no status is missed.
	delegated := make(chan string, 1) // the parent task's id, once it delegated
	var once sync.Once
	done := make(chan *caller.Outcome, 1)
	go func() {
		out, err := d.tester.Call(ctx, caller.Request{Target: DefaultName, Skill: SkillDelegate, SessionID: "cancel-me", Timeout: time.Minute,
			Input: mustJSON(t, map[string]any{"agent": "Helper", "skill": "sleep", "text": "60000"})}, func(st *a2a.TaskStatus) {
			if strings.HasPrefix(a2a.MessageText(st.Message), "delegated to Helper") {
				once.Do(func() { delegated <- st.TaskID })
			}
		})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	var taskID string
	select {
	case taskID = <-delegated:
	case <-ctx.Done():
		t.Fatal("the sub-task was never started")
	}
	if err := d.tester.Cancel(ctx, taskID); err != nil {
		t.Fatal(err)
	}
	if out := <-done; out != nil {
		wantCode(t, out, a2a.CodeCanceled)
	}

	// The sub-task's own outcome, stored by SampleAgent's caller, is CANCELED too.
	prefix := "session/cancel-me/a2a/Helper/"
	var keys []string
	testenv.Eventually(t, "the sub-task's outcome under "+prefix, func() bool {
		var err error
		if keys, err = d.w.Memory.List(ctx, prefix); err != nil {
			t.Fatal(err)
		}
		return len(keys) > 0
	})
	if len(keys) != 1 {
		t.Fatalf("%d outcomes under %s, want 1: %v", len(keys), prefix, keys)
	}
	raw, err := d.w.Memory.Get(ctx, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	var sub caller.StoredResult
	if err := json.Unmarshal(raw, &sub); err != nil {
		t.Fatal(err)
	}
	if sub.Error == nil || sub.Error.Code != a2a.CodeCanceled {
		t.Fatalf("sub-task outcome %s, want CANCELED", raw)
	}
}
