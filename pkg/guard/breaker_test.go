// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// cooldown is short so that the tests need not wait; only liveness is timed.
const cooldown = 20 * time.Millisecond

// waitState waits (generously) until target's circuit is in state.
func waitState(t *testing.T, g *Guard, target, state string) {
	t.Helper()
	testenv.Eventually(t, "the circuit of "+target+" "+state, func() bool { return g.CircuitState(target) == state },
		testenv.Explain(func() string { return "it is " + g.CircuitState(target) }))
}

func TestBreakerCountsOnlyFailures(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{BreakerFailures: 2, BreakerCooldown: time.Hour}})
	for _, code := range []a2a.ErrorCode{a2a.CodeInvalidInput, a2a.CodeForbidden, a2a.CodeSkillNotSupported, a2a.CodeCanceled,
		a2a.CodeCycleDetected, a2a.CodeInvalidInput, ""} {
		admit(t, g, "Cli", "X").Done(code)
	}
	if s := g.CircuitState("X"); s != "closed" {
		t.Fatalf("the caller's own faults opened the circuit: %s", s)
	}
	for _, failure := range []a2a.ErrorCode{a2a.CodeTimeout, a2a.CodeExecutionFailed, a2a.CodeUnavailable, a2a.CodeInternal} {
		if !IsFailure(failure) {
			t.Errorf("IsFailure(%s) = false", failure)
		}
	}
	// An answer in between resets the count; a cancel or an abandoned call does not count.
	admit(t, g, "Cli", "X").Done(a2a.CodeTimeout)
	admit(t, g, "Cli", "X").Done("")
	admit(t, g, "Cli", "X").Done(a2a.CodeInternal)
	admit(t, g, "Cli", "X").Done(a2a.CodeCanceled)
	admit(t, g, "Cli", "X").Abandon()
	if s := g.CircuitState("X"); s != "closed" {
		t.Fatalf("circuit %s after non-consecutive failures", s)
	}
	admit(t, g, "Cli", "x").Done(a2a.CodeUnavailable) // the second in a row, any spelling of the target
	if s := g.CircuitState("X"); s != "open" {
		t.Fatalf("circuit %s after 2 consecutive failures, want open", s)
	}
	_, err := g.Admit("Other", "X") // per target, whoever calls
	refused(t, err, a2a.CodeCircuitOpen, "the circuit to X is open after 2 consecutive failures", "retry in ")
	admit(t, g, "Cli", "Y").Done("") // other targets are unaffected
}

func TestBreakerOpensProbesAndCloses(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{BreakerFailures: 3, BreakerCooldown: cooldown}})
	for range 3 {
		admit(t, g, "Cli", "X").Done(a2a.CodeTimeout)
	}
	if _, err := g.Admit("Cli", "X"); a2a.CodeOf(err) != a2a.CodeCircuitOpen {
		t.Fatalf("call to an open circuit = %v, want CIRCUIT_OPEN", err)
	}

	// After the cool-down one probe goes through; others wait for it.
	waitState(t, g, "X", "half-open")
	probe := admit(t, g, "Cli", "X")
	_, err := g.Admit("Cli", "X")
	refused(t, err, a2a.CodeCircuitOpen, "half-open", "probe")
	probe.Done(a2a.CodeExecutionFailed) // still failing: open again
	if s := g.CircuitState("X"); s != "open" {
		t.Fatalf("circuit %s after a failed probe, want open", s)
	}

	waitState(t, g, "X", "half-open")
	admit(t, g, "Cli", "X").Abandon() // a probe without an outcome lets another one go
	probe = admit(t, g, "Cli", "X")
	probe.Done("") // recovered: closed
	if s := g.CircuitState("X"); s != "closed" {
		t.Fatalf("circuit %s after a successful probe, want closed", s)
	}
	for range 5 {
		admit(t, g, "Cli", "X").Done("")
	}
	probe.Done(a2a.CodeTimeout) // a second Done of the probe changes nothing
	if s := g.CircuitState("X"); s != "closed" {
		t.Fatalf("circuit %s after a repeated Done", s)
	}
}
