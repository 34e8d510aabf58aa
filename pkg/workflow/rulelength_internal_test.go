// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"strings"
	"testing"
)

// TestIDRulesBoundLengths: a step id is 1 to 64 characters and a run id
// 1 to 100, as their rules say; the lengths are checked beside the
// patterns, and these are the boundaries.
func TestIDRulesBoundLengths(t *testing.T) {
	for _, c := range []struct {
		id   string
		want bool
	}{{"s", true}, {strings.Repeat("s", 64), true}, {strings.Repeat("s", 65), false}, {"", false}, {"1s", false}} {
		if got := validStepID(c.id); got != c.want {
			t.Errorf("validStepID(%d characters %.8q) = %v, want %v", len(c.id), c.id, got, c.want)
		}
	}
	for _, c := range []struct {
		id   string
		want bool
	}{{"r", true}, {strings.Repeat("r", 100), true}, {strings.Repeat("r", 101), false}, {"", false}, {"a..b", false}} {
		err := ValidateRunID(c.id)
		if (err == nil) != c.want {
			t.Errorf("ValidateRunID(%d characters %.8q) = %v, want ok %v", len(c.id), c.id, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), runIDRule) {
			t.Errorf("ValidateRunID: %v does not state the rule", err)
		}
	}
}
