// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// TestMetricsAfterCalls makes real calls — completed, failed, unsupported,
// refused before sending, timed out — and reads the metrics they counted,
// on both buses, from the registry and from /metrics.
func TestMetricsAfterCalls(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cfg := testConfig(w)
		n := newNode(t, cfg, w, w.Connect(t))
		srv, err := n.StartOps(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		target, name := w.N("Metered"), w.N("MeterCaller")
		startAgent(t, n, target, nil)
		silent := w.N("Silent") // never runs: its calls time out
		c, err := n.Caller(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)

		call := func(target, skill string, timeout time.Duration) *caller.Outcome {
			t.Helper()
			out, err := c.Call(ctx, caller.Request{Target: target, Skill: skill, Text: "hi", Timeout: timeout}, nil)
			if err != nil {
				t.Fatalf("call %s.%s: %v", target, skill, err)
			}
			return out
		}
		for range 2 {
			if out := call(target, "echo", 0); out.Err() != nil {
				t.Fatalf("echo: %v", out.Err())
			}
		}
		if code := codeOf(call(target, "fail", 0).Err()); code != a2a.CodeExecutionFailed {
			t.Fatalf("fail answered %s", code)
		}
		if code := codeOf(call(target, "nosuchskill", 0).Err()); code != a2a.CodeSkillNotSupported {
			t.Fatalf("nosuchskill answered %s", code)
		}
		if code := codeOf(call(silent, "echo", time.Second).Err()); code != a2a.CodeTimeout {
			t.Fatalf("the silent agent's call ended %s", code)
		}
		_, err = c.Call(ctx, caller.Request{Target: name, Skill: "echo", Text: "me"}, nil)
		if codeOf(err) != a2a.CodeCycleDetected {
			t.Fatalf("calling itself: %v, want CYCLE_DETECTED", err)
		}

		reg := n.Ops.Registry()
		want := []struct {
			name   string
			labels map[string]string
			value  float64
		}{
			{"a2abus_tasks_received_total", map[string]string{"agent": target, "skill": "echo"}, 2},
			{"a2abus_tasks_received_total", map[string]string{"agent": target, "skill": ""}, 1}, // unknown skill: no label value of its own
			{"a2abus_tasks_completed_total", map[string]string{"agent": target, "skill": "echo"}, 2},
			{"a2abus_tasks_failed_total", map[string]string{"agent": target, "skill": "fail", "code": "EXECUTION_FAILED"}, 1},
			{"a2abus_tasks_failed_total", map[string]string{"agent": target, "skill": "", "code": "SKILL_NOT_SUPPORTED"}, 1},
			{"a2abus_task_duration_seconds", map[string]string{"agent": target, "skill": "echo"}, 2},
			{"a2abus_calls_total", map[string]string{"caller": name, "target": target, "outcome": "completed", "code": ""}, 2},
			{"a2abus_calls_total", map[string]string{"caller": name, "target": target, "outcome": "failed", "code": "EXECUTION_FAILED"}, 1},
			{"a2abus_calls_total", map[string]string{"caller": name, "target": silent, "outcome": "timeout", "code": "TIMEOUT"}, 1},
			{"a2abus_calls_total", map[string]string{"caller": name, "target": name, "outcome": "refused", "code": "CYCLE_DETECTED"}, 1},
			{"a2abus_call_duration_seconds", map[string]string{"caller": name, "target": target}, 4},
			{"a2abus_results_finalized_total", map[string]string{"caller": name}, 5},
			{"a2abus_timeouts_swept_total", map[string]string{"caller": name}, 1},
		}
		// The caller's waiter can return the timeout before the sweeper has
		// finalized it (and counted it): wait for the counts to settle; a
		// count above its want (counted twice) never settles.
		mismatches := func() []string {
			var out []string
			for _, m := range want {
				if got, err := value(reg, m.name, m.labels); err != nil || got != m.value {
					out = append(out, fmt.Sprintf("%s%v = %v (%v), want %v", m.name, m.labels, got, err, m.value))
				}
			}
			if got, err := value(reg, "a2abus_calls_in_flight", map[string]string{"caller": strings.ToLower(name)}); err == nil && got != 0 {
				out = append(out, fmt.Sprintf("calls in flight after every call ended = %v, want 0 (or none)", got))
			}
			return out
		}
		testenv.Eventually(t, "the metrics of the calls", func() bool { return len(mismatches()) == 0 },
			testenv.Explain(func() string { return strings.Join(mismatches(), "\n") }))
		if w.Kind == "real" {
			if got, err := value(reg, "a2abus_broker_connected", map[string]string{}); err != nil || got != 1 {
				t.Errorf("a2abus_broker_connected = %v (%v), want 1", got, err)
			}
		}

		// /metrics serves the same registry, in the text format.
		status, body := get(t, "http://"+srv.Addr().String()+"/metrics")
		if status != 200 {
			t.Fatalf("/metrics: %d", status)
		}
		for _, s := range []string{`a2abus_tasks_completed_total{agent="` + target + `",skill="echo"} 2`, "a2abus_call_duration_seconds_bucket", "go_goroutines"} {
			if !strings.Contains(body, s) {
				t.Errorf("/metrics lacks %q", s)
			}
		}
		testenv.Eventually(t, "the node to be ready", func() bool {
			status, _ := get(t, "http://"+srv.Addr().String()+"/readyz")
			return status == 200
		})
	})
}

// TestGuardRefusalsAndCircuit counts the guard's refusals by reason and
// reports the circuit of a failing target open.
func TestGuardRefusalsAndCircuit(t *testing.T) {
	w := testworld.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := testConfig(w)
	cfg.Limits.BreakerFailures = 2
	cfg.Limits.BreakerCooldown = time.Hour
	n := newNode(t, cfg, w, w.Connect(t))
	startAgent(t, n, "Flaky", nil)
	c, err := n.Caller("GuardCaller", nil)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	for range 2 {
		if _, err := c.Call(ctx, caller.Request{Target: "Flaky", Skill: "fail", Text: "x"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.Call(ctx, caller.Request{Target: "Flaky", Skill: "echo", Text: "x"}, nil)
	if codeOf(err) != a2a.CodeCircuitOpen {
		t.Fatalf("third call: %v, want CIRCUIT_OPEN", err)
	}
	reg := n.Ops.Registry()
	if got, err := value(reg, "a2abus_guard_refusals_total", map[string]string{"reason": "CIRCUIT_OPEN"}); err != nil || got != 1 {
		t.Errorf("guard refusals CIRCUIT_OPEN = %v (%v), want 1", got, err)
	}
	if got, err := value(reg, "a2abus_breaker_state", map[string]string{"target": "Flaky"}); err != nil || got != 2 {
		t.Errorf("breaker state of Flaky = %v (%v), want 2 (open)", got, err)
	}
	if got, err := value(reg, "a2abus_calls_total", map[string]string{"caller": "GuardCaller", "target": "Flaky", "outcome": "refused", "code": "CIRCUIT_OPEN"}); err != nil || got != 1 {
		t.Errorf("refused calls = %v (%v), want 1", got, err)
	}
}

// codeOf is the a2a error code err carries, or "".
func codeOf(err error) a2a.ErrorCode {
	var e *a2a.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
