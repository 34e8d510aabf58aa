// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"fmt"
	"testing"
	"time"
)

// A call between names the Guard has seen does not lower them again: the
// allocations of an admitted call are its ticket's, its token's and its
// circuit's, whatever the case of the names.
func TestAdmitDoesNotLowerKnownNamesAgain(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{MaxInFlight: 8, Rate: 1e6, Burst: 1e6, BreakerFailures: 3, BreakerCooldown: time.Minute}})
	admit(t, g, "BenchCaller", "BenchEcho").Done("")
	n := testing.AllocsPerRun(100, func() {
		tk, err := g.Admit("BenchCaller", "BenchEcho")
		if err != nil {
			t.Fatal(err)
		}
		tk.Done("")
	})
	if n > 4 {
		t.Fatalf("an admitted call allocates %v objects, want at most 4 (its ticket, token and circuit pass)", n)
	}
}

// The keys a Guard remembers are bounded; a name beyond them is counted
// all the same, under its key.
func TestNameKeysAreBounded(t *testing.T) {
	g := mustGuard(t, Config{Limits: Limits{MaxInFlight: 1}})
	for i := range maxNameKeys + 10 {
		admit(t, g, fmt.Sprintf("Caller%d", i), "Target").Done("")
	}
	if n := len(g.keys); n > maxNameKeys {
		t.Fatalf("%d name keys remembered, want at most %d", n, maxNameKeys)
	}
	busy := admit(t, g, "CALLER1033", "Target")
	if _, err := g.Admit("caller1033", "Target"); err == nil {
		t.Fatal("a caller beyond the remembered names is not counted under its key")
	}
	busy.Done("")
}
