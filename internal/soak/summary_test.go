// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestSummaryJSONIsCamelCase: the summary line's field names are camelCase
// (its maps are keyed by values: fault kinds, dead-letter reasons, states).
func TestSummaryJSONIsCamelCase(t *testing.T) {
	if bad := testenv.NotCamelCaseJSON(&Summary{Problems: []string{"p"}}); len(bad) > 0 {
		t.Fatalf("%q", bad)
	}
}

// A soak fails not only on a loss but when it did not test what it was
// asked to: a fault not injected, faults planned and none injected, no
// task, or too many tasks never sent. A clean run with its faults passes.
func TestSummaryFailsARunThatTestedLittle(t *testing.T) {
	clean := func() *Summary {
		return &Summary{Tasks: 100, Refused: 3, Abandoned: 2, FaultsPlanned: 4, Faults: map[FaultKind]int{FaultKillAgent: 3, FaultRedisPause: 0}}
	}
	if why := clean().FailReasons(); len(why) != 0 {
		t.Fatalf("a clean run fails: %q", why)
	}
	for name, c := range map[string]struct {
		change func(*Summary)
		want   string
	}{
		"a loss":               {func(s *Summary) { s.Lost = 1 }, "1 lost"},
		"a fault not injected": {func(s *Summary) { s.FaultFailures = 2 }, "2 planned faults not injected"},
		"no fault fired":       {func(s *Summary) { s.Faults = map[FaultKind]int{FaultKillAgent: 0} }, "none of the 4 planned faults was injected"},
		"no task":              {func(s *Summary) { s.Tasks, s.Refused, s.Abandoned = 0, 0, 0 }, "no task was run"},
		"every task refused":   {func(s *Summary) { s.Refused = 100 }, "102 of 100 tasks refused or abandoned"},
		"many abandoned":       {func(s *Summary) { s.Refused, s.Abandoned = 0, 11 }, "11 of 100 tasks refused or abandoned, over 10%"},
	} {
		s := clean()
		c.change(s)
		why := s.FailReasons()
		if !s.Failed() || len(why) != 1 || !strings.Contains(why[0], c.want) {
			t.Errorf("%s: fail reasons %q, want one saying %q", name, why, c.want)
		}
	}
}
