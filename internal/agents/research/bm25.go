// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// BM25 parameters: term-frequency saturation and length normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stopWords are frequent English words that say nothing about a topic.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about after all also am an and any are as at be been but by can could
		did do does doing for from had has have how if in into is it its just me more most my no nor not of
		on or our out over own so some such than that the their them then there these they this those through
		to too under until up very was we were what when where which while who whom why will with would you your`) {
		stopWords[w] = true
	}
}

// Tokenize returns the searchable words of s: lower-cased runs of letters
// and digits, without one-character words and stop words, plurals folded
// to the singular ("queues" → "queue", "policies" → "policy").
func Tokenize(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if len([]rune(w)) < 2 || stopWords[w] {
			continue
		}
		out = append(out, singular(w))
	}
	return out
}

// singular folds the regular English plural endings of words longer than three letters.
func singular(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// Hit is a passage and its BM25 score for a query.
type Hit struct {
	Passage *Passage
	Score   float64
}

// Rank scores every passage against the query's terms with Okapi BM25 and
// returns the matching ones (score > 0), best first, at most limit of them
// (limit <= 0: all). Ties are broken by path, then by position.
func Rank(passages []Passage, query []string, limit int) []Hit {
	if len(passages) == 0 || len(query) == 0 {
		return nil
	}
	terms := slices.Compact(slices.Sorted(slices.Values(query)))
	df := make(map[string]int, len(terms))
	total := 0
	for i := range passages {
		total += len(passages[i].terms)
		seen := map[string]bool{}
		for _, t := range passages[i].terms {
			if !seen[t] && slices.Contains(terms, t) {
				seen[t] = true
				df[t]++
			}
		}
	}
	n := float64(len(passages))
	avgLen := math.Max(float64(total)/n, 1)
	idf := make(map[string]float64, len(df))
	for t, d := range df {
		idf[t] = math.Log(1 + (n-float64(d)+0.5)/(float64(d)+0.5))
	}

	var hits []Hit
	for i := range passages {
		p := &passages[i]
		tf := map[string]int{}
		for _, t := range p.terms {
			if _, ok := idf[t]; ok {
				tf[t]++
			}
		}
		if len(tf) == 0 {
			continue
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(p.terms))/avgLen)
		score := 0.0
		for t, f := range tf {
			score += idf[t] * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
		}
		hits = append(hits, Hit{Passage: p, Score: score})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Passage.Path, b.Passage.Path)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
