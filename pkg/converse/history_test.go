// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/converse"
)

func transcriptOf(n, size int) []converse.Entry {
	var out []converse.Entry
	for i := 1; i <= n; i++ {
		out = append(out,
			converse.Entry{Turn: i, Role: converse.RoleLocal, Text: fmt.Sprintf("q%d %s", i, strings.Repeat("x", size))},
			converse.Entry{Turn: i, Role: converse.RoleRemote, Text: fmt.Sprintf("a%d %s", i, strings.Repeat("y", size))})
	}
	return out
}

// History is bounded by turns and chars, the dropped turns summarized, the
// latest remote message kept verbatim whatever its size, deterministically.
func TestBoundHistory(t *testing.T) {
	tr := transcriptOf(10, 100)
	kept, summary, latest := converse.BoundHistory(tr, 4, 100_000)
	if len(kept) != 4 || kept[3].Text != tr[18].Text || latest != tr[19].Text {
		t.Fatalf("kept %d (last %q), latest %q", len(kept), kept[len(kept)-1].Text, latest)
	}
	if !strings.HasPrefix(summary, "15 earlier messages omitted (8 local, 7 remote, 0 human):") || !strings.Contains(summary, "[turn 1 local_agent] q1") {
		t.Fatalf("summary %q", summary)
	}
	kept, _, _ = converse.BoundHistory(tr, 100, 350)
	chars := 0
	for _, k := range kept {
		chars += len(k.Text)
	}
	if chars > 350 || len(kept) != 3 {
		t.Fatalf("%d turns of %d chars kept, want 3 within 350", len(kept), chars)
	}
	huge := transcriptOf(2, 50_000)
	kept, summary, latest = converse.BoundHistory(huge, 6, 1000)
	if latest != huge[3].Text || len(kept) != 0 || len(summary) > 2000 || summary == "" {
		t.Fatalf("huge: latest verbatim %v, kept %d, summary %d chars", latest == huge[3].Text, len(kept), len(summary))
	}
	k2, s2, l2 := converse.BoundHistory(huge, 6, 1000)
	if len(k2) != len(kept) || s2 != summary || l2 != latest {
		t.Fatal("BoundHistory is not deterministic")
	}
	if kept, summary, latest := converse.BoundHistory(nil, 6, 1000); len(kept) != 0 || summary != "" || latest != "" {
		t.Fatal("an empty transcript has no history")
	}
}
