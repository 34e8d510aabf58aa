// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"testing"
	"time"
)

// TestWaterfallStaysOnItsAxis: every bar starts and ends within the span,
// at its place in time, a short one included.
func TestWaterfallStaysOnItsAxis(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tasks := []task{
		{ID: "a", Created: t0, Duration: 10 * time.Second},
		{ID: "b", Created: t0.Add(5 * time.Second), Duration: 5 * time.Second},
		{ID: "c", Created: t0.Add(10 * time.Second), Duration: time.Millisecond}, // at the very end
	}
	bars, span := waterfall(tasks)
	if span < 10*time.Second || len(bars) != 3 {
		t.Fatalf("span %s, %d bars", span, len(bars))
	}
	for _, b := range bars {
		if b.Left < 0 || b.Width <= 0 || b.Left+b.Width > 100.0001 {
			t.Errorf("bar %s at %.2f%% wide %.2f%%: off the axis", b.Task.ID, b.Left, b.Width)
		}
	}
	if bars[0].Left != 0 || bars[0].Width < 99 || bars[1].Left < 49 || bars[1].Left > 51 {
		t.Errorf("bars not where their tasks are in time: %+v", bars)
	}
	if none, _ := waterfall(nil); none != nil {
		t.Errorf("no tasks gave bars: %+v", none)
	}
}

// TestCallTreeFollowsTheChains: nested calls hang under the agent that made them.
func TestCallTreeFollowsTheChains(t *testing.T) {
	tree := callTree([]task{
		{Caller: "Alice", Target: "Planner", Chain: []string{"Alice"}},
		{Caller: "Planner", Target: "Search", Chain: []string{"Alice", "Planner"}, Code: "TIMEOUT"},
		{Caller: "Planner", Target: "Search", Chain: []string{"Alice", "Planner"}},
		{Caller: "Bob", Target: "Search"}, // no chain: the caller is the origin
	})
	if len(tree) != 2 || tree[0].Name != "Alice" || tree[1].Name != "Bob" {
		t.Fatalf("roots: %+v", tree)
	}
	planner := tree[0].Children[0]
	if planner.Name != "Planner" || planner.Tasks != 1 || len(planner.Children) != 1 {
		t.Fatalf("Alice → Planner: %+v", planner)
	}
	if s := planner.Children[0]; s.Name != "Search" || s.Tasks != 2 || s.Failed != 1 {
		t.Errorf("Alice → Planner → Search: %+v", s)
	}
}
