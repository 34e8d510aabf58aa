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
// repository's docs folder (what the one-shot job measured in
// docs/performance.md does): read and split every file, rank the passages,
// rate the confidence.
func BenchmarkFolderTask(b *testing.B) {
	r := &researcher{docs: Folder("../../../docs")}
	task := &agent.Task{Request: &a2a.TaskRequest{}} // no stream: progress is not published
	terms := Tokenize("how does KEDA scale jobs")
	b.ReportAllocs()
	for b.Loop() {
		g, err := r.fromFolder(context.Background(), task)
		if err != nil {
			b.Fatal(err)
		}
		all := Rank(g.passages, terms, 0)
		if len(all) == 0 {
			b.Fatal("nothing matched")
		}
		_ = Confidence(terms, all, all[:min(len(all), TopPassages)])
	}
}
