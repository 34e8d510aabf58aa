// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"What changed between RabbitMQ classic and Quorum queues?", []string{"changed", "between", "rabbitmq", "classic", "quorum", "queue"}},
		{"agent.task.<Name> is a durable queue", []string{"agent", "task", "name", "durable", "queue"}},
		{"max_attempts: 5 — policies, classes, status", []string{"max", "attempt", "policy", "class", "status"}},
		{"a I x the of", nil},
		{"", nil},
	} {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitMarkdown(t *testing.T) {
	doc := strings.Join([]string{
		"Intro line one",
		"intro line two.",
		"",
		"# Queues ##",
		"Task queues are durable.",
		"",
		"```sh",
		"# not a heading",
		"",
		"echo still code",
		"```",
		"## Dead letters",
		"Poison messages go to a2a.dead.",
		"#hashtag is text",
		"    # indented code",
	}, "\n")
	got := SplitMarkdown("ops/guide.md", doc)
	want := []struct{ name, text string }{
		{"ops/guide.md", "Intro line one\nintro line two."},
		{"ops/guide.md#Queues", "Task queues are durable."},
		{"ops/guide.md#Queues", "```sh\n# not a heading\n\necho still code\n```"},
		{"ops/guide.md#Dead letters", "Poison messages go to a2a.dead.\n#hashtag is text\n    # indented code"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d passages, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Name() != w.name || got[i].Text != w.text {
			t.Errorf("passage %d: got %q %q, want %q %q", i, got[i].Name(), got[i].Text, w.name, w.text)
		}
	}
}

func TestSplitText(t *testing.T) {
	got := SplitText("notes.txt", "first para\r\nstill first\r\n  \r\nsecond\n\n\n")
	if len(got) != 2 || got[0].Text != "first para\nstill first" || got[1].Text != "second" || got[1].Name() != "notes.txt" {
		t.Fatalf("got %+v", got)
	}
}

func TestRankScoresWithBM25(t *testing.T) {
	passages := []Passage{
		newPassage("a.md", "", "quorum queue"),
		newPassage("b.md", "", "classic queue"),
	}
	// N=2, the term is in one passage: idf = ln(1 + 1.5/1.5) = ln 2. Both
	// passages have the average length (2), so the tf part is 1·2.2/(1+1.2) = 1.
	hits := Rank(passages, Tokenize("quorum"), 0)
	if len(hits) != 1 || hits[0].Passage.Path != "a.md" || math.Abs(hits[0].Score-math.Ln2) > 1e-12 {
		t.Fatalf("got %+v, want a.md scoring ln 2", hits)
	}
	// A term in every passage still scores, but below a rare one.
	hits = Rank(passages, Tokenize("classic queues"), 0)
	if len(hits) != 2 || hits[0].Passage.Path != "b.md" || hits[0].Score <= hits[1].Score {
		t.Fatalf("got %+v, want b.md first", hits)
	}
	if hits := Rank(passages, Tokenize("kubernetes"), 0); len(hits) != 0 {
		t.Fatalf("no passage has the term, got %+v", hits)
	}
}

func TestRankPrefersFrequentTermsAndShortPassages(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	passages := []Passage{
		newPassage("long.md", "", "redis memory "+filler),
		newPassage("short.md", "", "redis memory"),
		newPassage("twice.md", "", "redis memory redis memory "+filler),
		newPassage("other.md", "", "rabbitmq broker"),
	}
	hits := Rank(passages, Tokenize("redis"), 2)
	if len(hits) != 2 || hits[0].Passage.Path != "short.md" || hits[1].Passage.Path != "twice.md" {
		t.Fatalf("got %v, want short.md then twice.md (limit 2)", names(hits))
	}
}

func TestReadCorpusFromFolder(t *testing.T) {
	dir := writeDocs(t, map[string]string{
		"ops.md":                "# Running\n\nStart the agent with sample-agent.\n\n# Stopping\n\nSIGTERM drains tasks.",
		"nested/deep/notes.txt": "KEDA starts one job per task.\n\nThe job exits after it.",
		"image.png":             "not text",
		".git/config.md":        "# hidden\n\nmust be skipped",
		"README.MD":             "Upper-case extension counts.",
	})
	rel, err := listDocuments(context.Background(), Folder(dir))
	if err != nil {
		t.Fatal(err)
	}
	var passages []Passage
	for _, f := range rel {
		ps, err := readDocument(Folder(dir), f)
		if err != nil {
			t.Fatal(err)
		}
		passages = append(passages, ps...)
	}
	if want := []string{"README.MD", "nested/deep/notes.txt", "ops.md"}; !slices.Equal(rel, want) {
		t.Fatalf("files %q, want %q", rel, want)
	}
	hits := Rank(passages, Tokenize("how does KEDA start a job?"), 5)
	if len(hits) == 0 || hits[0].Passage.Name() != "nested/deep/notes.txt" || !strings.Contains(hits[0].Passage.Text, "one job per task") {
		t.Fatalf("got %v", names(hits))
	}
	hits = Rank(passages, Tokenize("stopping with SIGTERM"), 5)
	if len(hits) == 0 || hits[0].Passage.Name() != "ops.md#Stopping" {
		t.Fatalf("got %v", names(hits))
	}

	if _, err := listDocuments(context.Background(), Folder(filepath.Join(dir, "missing"))); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing folder: %v, want fs.ErrNotExist", err)
	}
	if _, err := listDocuments(context.Background(), Folder(filepath.Join(dir, "ops.md"))); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a file as the folder: %v", err)
	}
}

func TestReadCorpusBuiltIn(t *testing.T) {
	docs := Embedded(fstest.MapFS{
		"memory.md":         {Data: []byte("# Results\n\nA result is stored under its task id.")},
		".hidden/secret.md": {Data: []byte("# hidden\n\nmust be skipped")},
		"big.txt":           {Data: make([]byte, MaxFileBytes+1)},
		"logo.png":          {Data: []byte("not text")},
	}, "the built-in docs")
	files, err := listDocuments(context.Background(), docs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"big.txt", "memory.md"}; !slices.Equal(files, want) {
		t.Fatalf("files %q, want %q", files, want)
	}
	if _, err := readDocument(docs, "big.txt"); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("a file over the bound: %v", err)
	}
	ps, err := readDocument(docs, "memory.md")
	if err != nil || len(ps) != 1 || ps[0].Name() != "memory.md#Results" {
		t.Fatalf("passages %v, %v", ps, err)
	}
	if docs.String() != "the built-in docs" {
		t.Fatalf("name %q", docs)
	}
}

func writeDocs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Passage.Name())
	}
	return out
}
