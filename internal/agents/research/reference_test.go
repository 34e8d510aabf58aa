// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The tokenizer, splitter and ranking of the package scan without
// allocating per word; the reference versions below are how they were
// written before (strings.ToLower and FieldsFunc, joined lines, a term
// list per passage), and the tests hold the package to them on the
// repository's docs and on text that is hard to tokenize.

func referenceTokenize(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var out []string
	for _, w := range words {
		if len([]rune(w)) < 2 || stopWords[w] {
			continue
		}
		out = append(out, referenceSingular(w))
	}
	return out
}

func referenceSingular(w string) string {
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

func referenceSplit(text string, markdown bool) []string {
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, strings.Join(para, "\n"))
			para = nil
		}
	}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case !markdown && trimmed == "":
			flush()
		case !markdown:
			para = append(para, line)
		case fence != "":
			para = append(para, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			para = append(para, line)
		case trimmed == "":
			flush()
		default:
			if _, ok := atxHeading(line); ok {
				flush()
				continue
			}
			para = append(para, line)
		}
	}
	flush()
	return out
}

func referenceScores(passages []Passage, query []string) map[*Passage]float64 {
	terms := slices.Compact(slices.Sorted(slices.Values(query)))
	all := make([][]string, len(passages))
	df := map[string]int{}
	total := 0
	for i := range passages {
		all[i] = referenceTokenize(passages[i].Heading + "\n" + passages[i].Text)
		total += len(all[i])
		seen := map[string]bool{}
		for _, t := range all[i] {
			if !seen[t] && slices.Contains(terms, t) {
				seen[t] = true
				df[t]++
			}
		}
	}
	n := float64(len(passages))
	avgLen := math.Max(float64(total)/n, 1)
	scores := map[*Passage]float64{}
	for i := range passages {
		tf := map[string]int{}
		for _, t := range all[i] {
			if df[t] > 0 {
				tf[t]++
			}
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(all[i]))/avgLen)
		for t, f := range tf {
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			scores[&passages[i]] += idf * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
		}
	}
	return scores
}

// hardText is text whose words are hard to find: upper-case non-ASCII
// letters (the Kelvin sign lower-cases to an ASCII k), digits of other
// scripts, invalid UTF-8, a replacement character written out, plurals
// and stop words, CRLF line ends and trailing blanks.
const hardText = "ÉCOLE Straße İstanbul \u212Aelvin ５０ queues Policies THE a b9 x\xffy \uFFFD boxes classes status\r\n" +
	"  line with trailing blanks  \r\n\r\n# Heading  #\r\n~~~\r\ncode  \r\n~~~\r\n"

func TestTokenizeAsTheReference(t *testing.T) {
	for _, s := range append(docsTexts(t), hardText, "", "a", "ab", "über ÜBER") {
		if got, want := Tokenize(s), referenceTokenize(s); !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%.60q…) differs from the reference:\n got %q\nwant %q", s, got, want)
		}
	}
}

func TestSplitAsTheReference(t *testing.T) {
	for _, s := range append(docsTexts(t), hardText, "", "\n", "one\n\ntwo\n", "trailing  \nlines\t\n") {
		for _, markdown := range []bool{true, false} {
			var ps []Passage
			if markdown {
				ps = SplitMarkdown("d.md", s)
			} else {
				ps = SplitText("d.txt", s)
			}
			got := make([]string, len(ps))
			for i, p := range ps {
				got[i] = p.Text
			}
			if want := referenceSplit(s, markdown); !slices.Equal(got, want) {
				t.Fatalf("split (markdown %v) of %.60q… differs from the reference:\n got %q\nwant %q", markdown, s, got, want)
			}
		}
	}
}

func TestRankAsTheReference(t *testing.T) {
	var passages []Passage
	for i, s := range append(docsTexts(t), hardText) {
		passages = append(passages, SplitMarkdown(strings.Repeat("d", i%7+1)+".md", s)...)
	}
	for _, q := range []string{"how does KEDA scale jobs", "queue queues QUEUE", "straße kelvin policies", "nothing-matches-this"} {
		query := Tokenize(q)
		want := referenceScores(passages, query)
		hits := Rank(passages, query, 0)
		matched := 0
		for _, s := range want {
			if s > 0 {
				matched++
			}
		}
		if len(hits) != matched {
			t.Fatalf("%q: %d hits, the reference scores %d passages above 0", q, len(hits), matched)
		}
		for i, h := range hits {
			if w := want[h.Passage]; math.Abs(h.Score-w) > 1e-9*math.Max(1, w) {
				t.Fatalf("%q: %s scores %v, the reference %v", q, h.Passage.Name(), h.Score, w)
			}
			if i > 0 && hits[i-1].Score < h.Score {
				t.Fatalf("%q: hit %d scores above hit %d", q, i, i-1)
			}
		}
	}
}

// docsTexts is every Markdown file of the repository's docs folder.
func docsTexts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("the docs folder: %v (%d files)", err, len(files))
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestReadDocumentReplacesInvalidUTF8: a file's invalid bytes become
// U+FFFD, as they did when every file went through strings.ToValidUTF8
// (now only those utf8.Valid refuses); a valid file is read as it is.
func TestReadDocumentReplacesInvalidUTF8(t *testing.T) {
	dir := writeDocs(t, map[string]string{"bad.txt": "caf\xe9 ok\xff", "good.md": "# Straße\n\ncafé"})
	ps, err := readDocument(Folder(dir), "bad.txt")
	if err != nil || len(ps) != 1 || ps[0].Text != "caf\uFFFD ok\uFFFD" {
		t.Fatalf("bad.txt: %+v, %v", ps, err)
	}
	ps, err = readDocument(Folder(dir), "good.md")
	if err != nil || len(ps) != 1 || ps[0].Heading != "Straße" || ps[0].Text != "café" {
		t.Fatalf("good.md: %+v, %v", ps, err)
	}
}
