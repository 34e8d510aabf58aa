// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"encoding/json"
	"slices"
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

// A run in which a planned kind of fault never fired did not test what it
// was asked to, even with other faults injected: the summary line of a CI
// run of make soak-short (1 of 19 faults injected: one broker restart) did
// pass; it fails, naming each kind missed and how many were planned, and
// the line keeps its fields (faults, faultsPlanned, faultFailures) beside
// the planned count by kind.
func TestSummaryFailsAKindNeverInjected(t *testing.T) {
	line := `{"tasks":3000,"lost":0,"duplicated":0,"faults":{"close_connections":0,"broker_restart":1,"kill_agent":0,"kill_caller":0,"redis_pause":0},` +
		`"faultsPlanned":19,"faultsPlannedByKind":{"close_connections":5,"broker_restart":7,"kill_agent":2,"kill_caller":2,"redis_pause":3},` +
		`"faultsUnreached":18,"faultFailures":0,"seed":42,"servers":"private"}`
	var s Summary
	if err := json.Unmarshal([]byte(line), &s); err != nil {
		t.Fatal(err)
	}
	why := s.FailReasons()
	want := "fault kinds planned and never injected: close_connections (5 planned), kill_agent (2 planned), kill_caller (2 planned), redis_pause (3 planned)"
	if !slices.Contains(why, want) || len(why) != 1 {
		t.Fatalf("fail reasons %q, want only %q", why, want)
	}
	if got := s.MissedKinds(); !slices.Equal(got, []FaultKind{FaultCloseConns, FaultKillAgent, FaultKillCaller, FaultRedisPause}) {
		t.Errorf("missed kinds %v", got)
	}
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"faults":{`, `"faultsPlanned":19`, `"faultsPlannedByKind":{`, `"faultsUnreached":18`, `"faultFailures":0`, `"lost":0`} {
		if !strings.Contains(string(out), field) {
			t.Errorf("the line lost %s: %s", field, out)
		}
	}

	// Each kind fired, some faults past the load's end not injected: it passes.
	s.Faults = map[FaultKind]int{FaultCloseConns: 2, FaultBrokerRestart: 3, FaultKillAgent: 1, FaultKillCaller: 1, FaultRedisPause: 1}
	s.FaultsUnreached = 11
	if why := s.FailReasons(); len(why) != 0 {
		t.Errorf("every kind injected, fail reasons %q", why)
	}
	// None injected: one reason, the one it always gave.
	s.Faults = map[FaultKind]int{}
	if why := s.FailReasons(); len(why) != 1 || why[0] != "none of the 19 planned faults was injected" {
		t.Errorf("none injected: fail reasons %q", why)
	}
}
