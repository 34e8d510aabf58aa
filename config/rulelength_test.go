// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"strings"
	"testing"
)

// TestPolicyNamePatternsAreAtMost128: an agent name or pattern of a policy
// rule is 1 to 128 characters; the length is checked beside the pattern.
func TestPolicyNamePatternsAreAtMost128(t *testing.T) {
	for _, c := range []struct {
		p    string
		want bool
	}{{"Research*", true}, {strings.Repeat("a", 128), true}, {strings.Repeat("a", 129), false}, {"", false}, {"a b", false}} {
		if err := namePattern("policy.rules[0].caller", c.p); (err == nil) != c.want {
			t.Errorf("namePattern(%d characters %.8q) = %v, want ok %v", len(c.p), c.p, err, c.want)
		}
	}
}
