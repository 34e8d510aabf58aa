// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package text

import (
	"slices"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	names := []string{"SampleAgent", "ResearchAgent", "Primary", "SampleAgent2"}
	if got := Nearest("sampleagnet", names, 2, -1); !slices.Equal(got, []string{"SampleAgent", "SampleAgent2"}) {
		t.Errorf("nearest two = %v", got)
	}
	if got := Nearest("A2ABUS_BUS_URLL", []string{"A2ABUS_BUS_URL", "A2ABUS_REDIS_URL"}, 1, 3); !slices.Equal(got, []string{"A2ABUS_BUS_URL"}) {
		t.Errorf("within 3 edits = %v", got)
	}
	if got := Nearest("zzzzzzzz", names, 3, 3); len(got) != 0 {
		t.Errorf("nothing is within 3 edits, got %v", got)
	}
	if got := Nearest("x", names, 0, -1); got != nil {
		t.Errorf("n = 0: %v", got)
	}
	// A huge name is compared by its first runes only: bounded work.
	if got := Nearest(strings.Repeat("a", 1<<20), names, 1, -1); len(got) != 1 {
		t.Errorf("huge name: %v", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"héllo", "hello", 1}} {
		if got := editDistance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
