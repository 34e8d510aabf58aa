// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"regexp"
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

// TestNameRulesAsTheirRegexps: bus.exchange's and a policy rule's
// characters are checked by madeOf, not by the regular expressions every
// program compiled at start; it accepts exactly what they accept.
func TestNameRulesAsTheirRegexps(t *testing.T) {
	inputs := []string{"", "a2a", "tenant-1.x_y", "Research*", "Sample?", "a b", "a/b", "é", "a\x00", "ab\xff", "*", "-", ".", "..", "A-Z", "a2a\n"}
	for c := 0; c < 256; c++ {
		inputs = append(inputs, string(rune(c)), "a"+string([]byte{byte(c)}), string([]byte{byte(c)})+"z")
	}
	for _, r := range []struct {
		chars string
		re    *regexp.Regexp
	}{{exchangeChars, regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)}, {namePatternChars, regexp.MustCompile(`^[A-Za-z0-9_*?-]+$`)}} {
		for _, s := range inputs {
			if got, want := madeOf(s, r.chars), r.re.MatchString(s); got != want {
				t.Errorf("madeOf(%q, %q) = %v, %s says %v", s, r.chars, got, r.re, want)
			}
		}
	}
}
