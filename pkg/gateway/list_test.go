// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
)

// TestTaskIndexTrims: a principal's list is cut back to its max latest as
// tasks are added (every trimEvery additions), newest first, and sync
// waits until every addition is written.
func TestTaskIndexTrims(t *testing.T) {
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	const max, adds = 10, 2*trimEvery + 5
	idx := newTaskIndex(mem, max, func(err error) { t.Error(err) })
	start := time.Unix(1_700_000_000, 0)
	for i := range adds {
		idx.add("Alice", fmt.Sprintf("task-%04d", i), start.Add(time.Duration(i)*time.Millisecond))
	}
	idx.sync()
	key, err := memory.GatewayTasksIndex("Alice")
	if err != nil {
		t.Fatal(err)
	}
	members, err := mem.IndexRange(context.Background(), key, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) < max || len(members) > max+trimEvery {
		t.Fatalf("%d tasks listed after %d added, want %d to %d", len(members), adds, max, max+trimEvery)
	}
	for i, m := range members[:max] {
		if want := fmt.Sprintf("task-%04d", adds-1-i); m.Member != want {
			t.Errorf("listed %d: %s, want %s (newest first)", i, m.Member, want)
		}
	}
}
