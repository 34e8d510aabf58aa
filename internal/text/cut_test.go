// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package text

import "testing"

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"héllo wörld", 6, "hé…"}, // "…" is 3 bytes; "é" is not split
		{"ééé", 4, "…"},           // no whole rune fits before the mark
		{"abcdef", 2, "…"},        // n below the mark's size
		{"", 0, ""},
	} {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
