// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// BenchmarkFolderTask is the work of one research task over the
// repository's docs folder in a fresh process (what the one-shot job
// measured in docs/performance.md does without Preload): read, split and
// index every file, rank the passages, rate the confidence.
func BenchmarkFolderTask(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		folderTask(b, &researcher{docs: Folder("../../../docs")})
	}
}

// BenchmarkFolderTaskReused is a task that finds the folder as the previous
// task (or Preload) read it: list the files and compare their stamps, rank,
// rate. The files must have been written more than racyWindow ago (a
// checkout's are; a fresh one reads every time).
func BenchmarkFolderTaskReused(b *testing.B) {
	r := &researcher{docs: Folder("../../../docs")}
	folderTask(b, r)
	b.ReportAllocs()
	for b.Loop() {
		folderTask(b, r)
	}
}

func folderTask(b *testing.B, r *researcher) {
	task := &agent.Task{Request: &a2a.TaskRequest{}} // no stream: progress is not published
	terms := Tokenize("how does KEDA scale jobs")
	g, err := r.fromFolder(context.Background(), task)
	if err != nil {
		b.Fatal(err)
	}
	all := g.index.rank(terms, 0)
	if len(all) == 0 {
		b.Fatal("nothing matched")
	}
	_ = Confidence(terms, all, all[:min(len(all), TopPassages)])
}
