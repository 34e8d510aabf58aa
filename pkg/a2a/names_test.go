// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestValidateAgentName(t *testing.T) {
	good := []string{"A", "SampleAgent", "research-agent_2", "a" + strings.Repeat("b", 63)}
	bad := []string{"", "1abc", "a.b", "a*", "a#", "a b", "a/b", "ä", "a" + strings.Repeat("b", 64), "-a"}
	for _, n := range good {
		if err := ValidateAgentName(n); err != nil {
			t.Errorf("%q rejected: %v", n, err)
		}
	}
	for _, n := range bad {
		if err := ValidateAgentName(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q accepted (err=%v)", n, err)
		}
	}
}

func TestIDs(t *testing.T) {
	if err := ValidateSessionID("s1:chat.2"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "a..b", "a/b", ".a", "a b"} {
		if ValidateSessionID(bad) == nil {
			t.Errorf("session id %q accepted", bad)
		}
	}
	for _, bad := range []string{"", "a.b", "a/b", "_a"} {
		if ValidateTaskID(bad) == nil {
			t.Errorf("task id %q accepted", bad)
		}
	}
	if ValidateSkillID("npv.v2") != nil || ValidateSkillID("a b") == nil {
		t.Error("skill ids")
	}
}

func TestRoutingKeys(t *testing.T) {
	cases := []struct {
		f    func(string) (string, error)
		in   string
		want string
	}{
		{TaskRoutingKey, "SampleAgent", "agent.task.SampleAgent"},
		{ResponseRoutingKey, "Primary", "agent.response.Primary"},
		{CancelRoutingKey, "SampleAgent", "agent.cancel.SampleAgent"},
		{EventRoutingKey, "Primary", "agent.event.Primary"},
	}
	for _, tc := range cases {
		got, err := tc.f(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("got %q, %v; want %q", got, err, tc.want)
		}
		if _, err := tc.f("a.#"); !errors.Is(err, ErrInvalidName) {
			t.Errorf("wildcard name accepted: %v", err)
		}
	}
	q, err := InstanceQueue("SampleAgent", "i-1")
	if err != nil || q != "a2a.instance.SampleAgent.i-1" {
		t.Fatalf("InstanceQueue = %q, %v", q, err)
	}
	if _, err := InstanceQueue("SampleAgent", "i.1"); err == nil {
		t.Fatal("dotted instance id accepted")
	}
	if DeadLetterExchange(DefaultExchange) != "a2a.dlx" || DeadLetterQueue(DefaultExchange) != "a2a.dead" {
		t.Fatal("default dead-letter names")
	}
	if n, ok := AgentFromTaskKey("agent.task.X"); !ok || n != "X" {
		t.Fatal("AgentFromTaskKey")
	}
	if _, ok := CallerFromResponseKey("agent.task.X"); ok {
		t.Fatal("CallerFromResponseKey accepted a task key")
	}
	if !SameAgent("sampleagent", "SampleAgent") {
		t.Fatal("SameAgent is case-insensitive")
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	if _, err := ParseKind("TASK.REQUEST"); !errors.Is(err, ErrUnknownKind) {
		t.Fatal("kinds are case-sensitive")
	}
}

// TestIDPatternsAgreeWithTheirRegexps checks the hand-written matchers
// against the regular expressions they stand for.
func TestIDPatternsAgreeWithTheirRegexps(t *testing.T) {
	inputs := []string{"", "a", "A", "0", "_", "-", "a-b_c", "a.b", "a:b", "a b", "é", "ab\x00", "ABC_1", "A1",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a", 128), strings.Repeat("a", 129)}
	for _, p := range []*idPattern{agentNamePattern, instanceIDPattern, taskIDPattern, sessionIDPattern, skillIDPattern, errorCodePattern} {
		re := regexp.MustCompile(p.String())
		for _, in := range inputs {
			if got, want := p.match(in), re.MatchString(in); got != want {
				t.Errorf("%s on %q: %v, regexp says %v", p, in, got, want)
			}
		}
	}
}
