// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import "github.com/a2abus/a2abus/pkg/a2a"

// Confidence rates a search by how much of the question its passages hold
// (the contract's confidence_level, docs/wire-protocol.md):
//   - HIGH: the best passage holds every term of the question, and a
//     passage of another document does too;
//   - MEDIUM: the best passage holds every term (one source), or the top
//     passages together hold at least half of them;
//   - LOW: they hold less than half, or nothing matched (the answer is only
//     that these documents do not say);
//   - SPECULATIVE: a single term of a question of four or more matched.
func Confidence(terms []string, all, top []Hit) a2a.Confidence {
	if len(all) == 0 || len(top) == 0 {
		return a2a.ConfidenceLow
	}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	found := map[string]bool{}
	full := map[string]bool{} // the documents of the passages that hold every term
	best := 0
	for i, h := range top {
		n := 0
		seen := map[string]bool{}
		for _, t := range h.Passage.terms() {
			if want[t] && !seen[t] {
				seen[t], found[t] = true, true
				n++
			}
		}
		if i == 0 {
			best = n
		}
		if n == len(want) {
			full[h.Passage.Path] = true
		}
	}
	switch {
	case best == len(want) && len(full) > 1:
		return a2a.ConfidenceHigh
	case best == len(want) || 2*len(found) >= len(want):
		return a2a.ConfidenceMedium
	case len(found) <= 1 && len(want) >= 4:
		return a2a.ConfidenceSpeculative
	}
	return a2a.ConfidenceLow
}

// capped lowers c to at most limit.
func capped(c, limit a2a.Confidence) a2a.Confidence {
	rank := map[a2a.Confidence]int{a2a.ConfidenceSpeculative: 0, a2a.ConfidenceLow: 1, a2a.ConfidenceMedium: 2, a2a.ConfidenceHigh: 3}
	if rank[c] > rank[limit] {
		return limit
	}
	return c
}
