// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BM25 parameters: term-frequency saturation and length normalisation.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stopWords are frequent English words that say nothing about a topic.
var stopWords = map[string]bool{}

// maxStopWord is the length of the longest stop word, in bytes: a longer
// word is not looked up.
var maxStopWord int

// stopTable holds the stop words packed in a word each (stopKey), in an
// open-addressing table: scanning a passage looks a word up without
// hashing it as a string.
var stopTable [512]uint64

// stopKey packs a word of at most 8 bytes, none of them 0, into a uint64
// that is never 0: words of different lengths differ in their zero bytes.
func stopKey(w []byte) uint64 {
	var k uint64
	for i, c := range w {
		k |= uint64(c) << (8 * i)
	}
	return k
}

// stopSlot is where stopTable's search for key k begins.
func stopSlot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 55 } // the top 9 bits: 0…511

// isStopWord reports whether w (lower-cased) is one of stopWords.
func isStopWord(w []byte) bool {
	if len(w) > maxStopWord {
		return false
	}
	k := stopKey(w)
	for i := stopSlot(k); ; i = (i + 1) % uint64(len(stopTable)) {
		switch stopTable[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

func init() {
	for _, w := range strings.Fields(`about after all also am an and any are as at be been but by can could
		did do does doing for from had has have how if in into is it its just me more most my no nor not of
		on or our out over own so some such than that the their them then there these they this those through
		to too under until up very was we were what when where which while who whom why will with would you your`) {
		stopWords[w] = true
		maxStopWord = max(maxStopWord, len(w))
		if len(w) > 8 || len(stopWords) > len(stopTable)/2 {
			panic("research: stop word " + w + " does not fit stopTable")
		}
		k := stopKey([]byte(w))
		i := stopSlot(k)
		for stopTable[i] != 0 {
			i = (i + 1) % uint64(len(stopTable))
		}
		stopTable[i] = k
	}
}

// Tokenize returns the searchable words of s: lower-cased runs of letters
// and digits, without one-character words and stop words, plurals folded
// to the singular ("queues" → "queue", "policies" → "policy").
func Tokenize(s string) []string {
	var out []string
	scanTerms(s, nil, func(term []byte) { out = append(out, string(term)) })
	return out
}

// scanTerms calls fn with each word of s that Tokenize returns, in order,
// in a buffer that fn must not keep (buf, grown as needed and returned for
// the next call): a passage is scanned without allocating. Words are the
// runs of letters and digits of s lower-cased rune by rune (as
// strings.ToLower does; an invalid byte is a separator, as the U+FFFD it
// becomes there).
func scanTerms(s string, buf []byte, fn func(term []byte)) []byte {
	buf = buf[:0]
	runes := 0
	emit := func() {
		if runes >= 2 && !isStopWord(buf) {
			fn(singular(buf))
		}
		buf, runes = buf[:0], 0
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r < utf8.RuneSelf:
			r = -1 // ASCII, neither a letter nor a digit
		default:
			if r = unicode.ToLower(r); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				r = -1
			}
		}
		if r < 0 {
			emit()
			continue
		}
		buf = utf8.AppendRune(buf, r)
		runes++
	}
	emit()
	return buf
}

// singular folds the regular English plural endings of words longer than
// three letters, in place.
func singular(w []byte) []byte {
	switch {
	case len(w) <= 3, w[len(w)-1] != 's': // every ending below ends in s
		return w
	case bytes.HasSuffix(w, []byte("ies")):
		return append(w[:len(w)-3], 'y')
	case bytes.HasSuffix(w, []byte("sses")), bytes.HasSuffix(w, []byte("xes")), bytes.HasSuffix(w, []byte("ches")), bytes.HasSuffix(w, []byte("shes")):
		return w[:len(w)-2]
	case bytes.HasSuffix(w, []byte("s")) && !bytes.HasSuffix(w, []byte("ss")) && !bytes.HasSuffix(w, []byte("us")) && !bytes.HasSuffix(w, []byte("is")):
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
// (limit <= 0: all). Ties are broken by path, then by position. Each
// passage is tokenized here, once, keeping only its length and how often
// each query term occurs in it.
func Rank(passages []Passage, query []string, limit int) []Hit {
	if len(passages) == 0 || len(query) == 0 {
		return nil
	}
	terms := slices.Compact(slices.Sorted(slices.Values(query)))
	index := make(map[string]int, len(terms))
	var firsts [256]bool // the first bytes of the terms: most words are not looked up
	for k, t := range terms {
		index[t] = k
		if t != "" {
			firsts[t[0]] = true
		}
	}
	q := len(terms)
	tf := make([]int32, len(passages)*q) // passage i's counts: tf[i*q : i*q+q]
	lengths := make([]int, len(passages))
	total := 0
	var (
		buf []byte
		row []int32
		n   int
	)
	count := func(term []byte) {
		n++
		if !firsts[term[0]] {
			return
		}
		if k, ok := index[string(term)]; ok {
			row[k]++
		}
	}
	for i := range passages {
		row, n = tf[i*q:i*q+q], 0
		buf = scanTerms(passages[i].Heading, buf, count) // as Tokenize(heading + "\n" + text)
		buf = scanTerms(passages[i].Text, buf, count)
		lengths[i] = n
		total += n
	}
	return bm25Hits(passages, q, tf, lengths, total, limit)
}

// bm25Hits is the end of Rank, shared with index.rank: tf holds each
// passage's counts of the q query terms (passage i's at tf[i*q:i*q+q]),
// lengths each passage's number of words, total those of all passages.
func bm25Hits(passages []Passage, q int, tf []int32, lengths []int, total, limit int) []Hit {
	df := make([]int, q) // how many passages hold each term
	for i := range passages {
		for k, f := range tf[i*q : i*q+q] {
			if f > 0 {
				df[k]++
			}
		}
	}
	nDocs := float64(len(passages))
	avgLen := math.Max(float64(total)/nDocs, 1)
	idf := make([]float64, q)
	for k, d := range df {
		idf[k] = math.Log(1 + (nDocs-float64(d)+0.5)/(float64(d)+0.5))
	}

	var hits []Hit
	for i := range passages {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(lengths[i])/avgLen)
		score, matched := 0.0, false
		for k, f := range tf[i*q : i*q+q] {
			if f > 0 {
				score += idf[k] * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
				matched = true
			}
		}
		if matched {
			hits = append(hits, Hit{Passage: &passages[i], Score: score})
		}
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
