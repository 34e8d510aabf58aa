// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package text

import (
	"cmp"
	"slices"
	"strings"
)

// maxCompared bounds the runes of a name that Nearest compares, so a huge
// name costs no more than a long one.
const maxCompared = 128

// Nearest returns up to n of names nearest to name by edit distance,
// ignoring case, nearest first (ties in the order of names); with
// maxEdits >= 0 only those at most maxEdits edits away.
func Nearest(name string, names []string, n, maxEdits int) []string {
	if n <= 0 {
		return nil
	}
	target := []rune(strings.ToLower(name))
	target = target[:min(len(target), maxCompared)]
	type scored struct {
		name string
		dist int
	}
	all := make([]scored, 0, len(names))
	for _, k := range names {
		other := []rune(strings.ToLower(k))
		if d := editDistance(target, other[:min(len(other), maxCompared)]); maxEdits < 0 || d <= maxEdits {
			all = append(all, scored{k, d})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(a.dist, b.dist) })
	out := make([]string, 0, min(n, len(all)))
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
