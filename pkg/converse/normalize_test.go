// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestNegativeBoundsAreNamed: a negative limit or history bound is refused
// naming the field, not as "a limit".
func TestNegativeBoundsAreNamed(t *testing.T) {
	base := Spec{Local: "Mine", LocalSkill: "draft", Remote: "Theirs", RemoteSkill: "answer", Objective: "o"}
	for name, f := range map[string]func(*Spec){
		"limits.maxTurns":        func(s *Spec) { s.Limits.MaxTurns = -1 },
		"limits.maxDuration":     func(s *Spec) { s.Limits.MaxDuration = -time.Second },
		"limits.maxFailures":     func(s *Spec) { s.Limits.MaxFailures = -1 },
		"limits.tokenBudget":     func(s *Spec) { s.Limits.TokenBudget = -1 },
		"limits.localTimeout":    func(s *Spec) { s.Limits.LocalTimeout = -time.Second },
		"limits.remoteTimeout":   func(s *Spec) { s.Limits.RemoteTimeout = -time.Second },
		"history.maxTurns":       func(s *Spec) { s.History.MaxTurns = -1 },
		"history.maxChars":       func(s *Spec) { s.History.MaxChars = -1 },
		"history.maxOutputChars": func(s *Spec) { s.History.MaxOutputChars = -1 },
	} {
		s := base
		f(&s)
		if _, err := normalize(s); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), name+" must not be negative") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := normalize(base); err != nil {
		t.Fatal(err)
	}
}
