// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// TestIndexRanksAsRank: ranking an index gives Rank's hits, scores (to
// the bit) and order, on every file of docs/ and on text that is hard to
// tokenize, and for terms that are in no passage.
func TestIndexRanksAsRank(t *testing.T) {
	var passages []Passage
	for i, s := range append(docsTexts(t), hardText) {
		passages = append(passages, SplitMarkdown(strings.Repeat("d", i%7+1)+".md", s)...)
	}
	x, err := newIndex(context.Background(), passages)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"how does KEDA scale jobs", "queue queues QUEUE", "straße kelvin policies", "nothing-matches-this",
		"ÉCOLE istanbul ５０ heading code", "the agent agent stops"} {
		for _, limit := range []int{0, 3} {
			query := Tokenize(q)
			want, got := Rank(passages, query, limit), x.rank(query, limit)
			if len(got) != len(want) {
				t.Fatalf("%q, limit %d: %d hits, Rank %d", q, limit, len(got), len(want))
			}
			for i := range want {
				if got[i].Passage != want[i].Passage || got[i].Score != want[i].Score {
					t.Fatalf("%q, limit %d: hit %d is %s %v, Rank's %s %v", q, limit, i, got[i].Passage.Name(), got[i].Score,
						want[i].Passage.Name(), want[i].Score)
				}
			}
		}
	}
	if hits := (&index{}).rank(Tokenize("queue"), 0); hits != nil {
		t.Fatalf("an empty index: %v", names(hits))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newIndex(ctx, passages); err != context.Canceled {
		t.Fatalf("a cancelled indexing: %v", err)
	}
}

// TestVocabularyNumbersEachWordOnce: words keep their numbers as the
// table grows, and a word not added is not found.
func TestVocabularyNumbersEachWordOnce(t *testing.T) {
	var v vocabulary
	v.init(0)
	for round := range 2 {
		for i := range 1000 {
			w := fmt.Sprintf("w%d", i)
			if id := v.add([]byte(w)); id != uint32(i) {
				t.Fatalf("round %d: %s numbered %d", round, w, id)
			}
		}
	}
	if v.len() != 1000 {
		t.Fatalf("%d words", v.len())
	}
	if id, ok := v.lookup("w417"); !ok || id != 417 || string(v.word(id)) != "w417" {
		t.Fatalf("lookup w417: %d %v", id, ok)
	}
	if _, ok := v.lookup("w1000"); ok {
		t.Fatal("a word never added was found")
	}
}

// oldDocs writes files into a new folder, dated an hour ago: a corpus read
// from them may be reused (none is within racyWindow of the reading).
func oldDocs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := writeDocs(t, files)
	for name := range files {
		age(t, filepath.Join(dir, filepath.FromSlash(name)), time.Hour)
	}
	return dir
}

// age sets the file's times to d ago.
func age(t *testing.T, path string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// readCount reads d's corpus, returning it and whether it read files for it.
func readCount(t *testing.T, d Docs) (*corpus, bool) {
	t.Helper()
	read := false
	c, err := d.corpus(context.Background(), func(int, int) { read = true })
	if err != nil {
		t.Fatal(err)
	}
	return c, read
}

func TestCorpusIsReusedWhileTheFolderIsUnchanged(t *testing.T) {
	dir := oldDocs(t, map[string]string{"a.md": "# A\n\nQueues are durable.", "sub/b.txt": "KEDA starts jobs."})
	docs := Folder(dir)
	first, read := readCount(t, docs)
	if !read || len(first.index.passages) != 2 {
		t.Fatalf("first task: read %v, %d passages", read, len(first.index.passages))
	}
	again, read := readCount(t, docs)
	if read || again != first {
		t.Fatalf("second task over the unchanged folder: read %v, same corpus %v", read, again == first)
	}
}

func TestCorpusIsReadAgainWhenTheFolderChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		find   string // a word only the changed folder holds; "" for none
	}{
		{"a file rewritten, its date kept", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "a.md"), "# A\n\nQueues are durable and replicated.")
			age(t, filepath.Join(dir, "a.md"), time.Hour)
		}, "replicated"},
		{"a file added", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "sub", "c.md"), "Prefetch is one.")
			age(t, filepath.Join(dir, "sub", "c.md"), time.Hour)
		}, "prefetch"},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "sub", "b.txt")); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"a file changed just now", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "a.md"), "# A\n\nQueues are durable; streams.")
		}, "stream"},
		{"a file replaced by one of the same size and date", func(t *testing.T, dir string) {
			if runtime.GOOS != "linux" {
				t.Skip("only Linux's stamps hold the inode and the change time")
			}
			p := filepath.Join(dir, "a.md")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			write(t, p+".new", "# A\n\nQueues are lasting.")
			if err := os.Chtimes(p+".new", st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}, "lasting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := oldDocs(t, map[string]string{"a.md": "# A\n\nQueues are durable.", "sub/b.txt": "KEDA starts jobs."})
			docs := Folder(dir)
			first, _ := readCount(t, docs)
			tc.change(t, dir)
			again, read := readCount(t, docs)
			if !read || again == first {
				t.Fatalf("after the change: read %v, same corpus %v", read, again == first)
			}
			if tc.find != "" && len(again.index.rank([]string{tc.find}, 0)) != 1 {
				t.Fatalf("%q not found in the folder read again", tc.find)
			}
			if tc.find == "" && len(again.index.passages) != 1 {
				t.Fatalf("%d passages after the removal, want 1", len(again.index.passages))
			}
		})
	}
}

// TestCorpusReadJustAfterAChangeIsNotReused: a file modified within
// racyWindow before its corpus was read may change again without its stamp
// showing it (a stamp's time is coarse on some file systems), so that
// corpus is read again; one modified earlier is reused, and a file whose
// stamp is unknown never is.
func TestCorpusReadJustAfterAChangeIsNotReused(t *testing.T) {
	began := time.Now()
	at := func(d time.Duration) []docFile {
		m := began.Add(-d)
		return []docFile{{path: "a.md", stamp: stamp{known: true, size: 3, mtimeSec: m.Unix(), mtimeNsec: m.Nanosecond()}}}
	}
	for _, tc := range []struct {
		files []docFile
		reuse bool
	}{
		{at(time.Hour), true},
		{at(racyWindow + time.Second), true},
		{at(racyWindow / 2), false},
		{at(-time.Second), false},
		{[]docFile{{path: "a.md"}}, false},
	} {
		c := &corpus{files: tc.files, began: began}
		if got := c.reusable(tc.files); got != tc.reuse {
			t.Errorf("modified %v before the reading: reusable %v, want %v", began.Sub(tc.files[0].stamp.modified()), got, tc.reuse)
		}
	}
}

// TestCorpusWithASkippedFileIsNotReused: a file that could not be read
// (too large, here) is tried again at the next task.
func TestCorpusWithASkippedFileIsNotReused(t *testing.T) {
	dir := oldDocs(t, map[string]string{"a.md": "Queues are durable.", "big.txt": strings.Repeat("x", MaxFileBytes+1)})
	docs := Folder(dir)
	first, _ := readCount(t, docs)
	if len(first.warnings) != 1 {
		t.Fatalf("warnings %q", first.warnings)
	}
	if again, read := readCount(t, docs); !read || again == first {
		t.Fatalf("read %v, same corpus %v", read, again == first)
	}
}

func TestPreloadReadsTheFolderForTheFirstTask(t *testing.T) {
	dir := oldDocs(t, map[string]string{"a.md": "# A\n\nQueues are durable."})
	docs := Folder(dir)
	wait := docs.Preload(context.Background())
	wait()
	preloaded := docs.lib.get()
	if preloaded == nil {
		t.Fatal("the preload kept nothing")
	}
	if c, read := readCount(t, docs); read || c != preloaded {
		t.Fatalf("the task read the folder again (%v) or has another corpus (%v)", read, c != preloaded)
	}
	if again := docs.Preload(context.Background()); again == nil {
		t.Fatal("no wait")
	}
}

func TestPreloadStopsWithItsContext(t *testing.T) {
	docs := Folder(oldDocs(t, map[string]string{"a.md": "Queues are durable."}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	docs.Preload(ctx)()
	if docs.lib.get() != nil {
		t.Fatal("a cancelled preload kept a corpus")
	}
	if _, read := readCount(t, docs); !read {
		t.Fatal("the task did not read the folder")
	}
}

// TestPreloadFailureLeavesTheTaskItsError: a job whose folder could not be
// read at start answers as one that read it at the task (the error, or the
// folder as it is by then).
func TestPreloadFailureLeavesTheTaskItsError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	docs := Folder(dir)
	docs.Preload(context.Background())()
	c := docsWorld(t, docs)
	out, _ := research(t, c, "durable queues")
	wantCode(t, out, a2a.CodeExecutionFailed, dir, "does not exist")

	write(t, filepath.Join(dir, "a.md"), "Queues are durable.")
	out, _ = research(t, c, "durable queues")
	if err := out.Err(); err != nil || !strings.HasPrefix(out.Result.Text(), "Found 1 passage in 1 file") {
		t.Fatalf("the folder made since: %v %q", err, out.Result.Text())
	}
}

// TestResearchSeesTheFolderChangeBetweenTasks: an agent that keeps running
// answers from the folder as it is at each task.
func TestResearchSeesTheFolderChangeBetweenTasks(t *testing.T) {
	dir := oldDocs(t, map[string]string{"a.md": "# Queues\n\nQueues are durable."})
	docs := Folder(dir)
	docs.Preload(context.Background())()
	c := docsWorld(t, docs)
	out, _ := research(t, c, "durable queues")
	if err := out.Err(); err != nil || !strings.Contains(out.Result.Text(), "Queues are durable.") {
		t.Fatalf("first task: %v %q", err, out.Result.Text())
	}
	write(t, filepath.Join(dir, "a.md"), "# Queues\n\nQueues are durable, and quorum queues replicated.")
	age(t, filepath.Join(dir, "a.md"), time.Hour)
	out, _ = research(t, c, "durable queues")
	if err := out.Err(); err != nil || !strings.Contains(out.Result.Text(), "quorum queues replicated") {
		t.Fatalf("after the change: %v %q", err, out.Result.Text())
	}
}

// docsWorld runs a ResearchAgent on docs and returns a caller for it.
func docsWorld(t *testing.T, docs Docs) *caller.Caller {
	t.Helper()
	return agentWorld(t, func(a *agent.Agent) error { return RegisterDocs(a, docs, Model{}) })
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
