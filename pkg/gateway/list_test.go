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
// waits until the trim is done.
func TestTaskIndexTrims(t *testing.T) {
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	const max, adds = 10, 2*trimEvery + 5
	at := time.Unix(1_700_000_000, 0)
	idx := newTaskIndex(mem, max, func() time.Time { at = at.Add(time.Millisecond); return at }, func(err error) { t.Error(err) })
	for i := range adds {
		l := idx.listing("Alice")
		if _, err := mem.Batch(context.Background(), l.ops(fmt.Sprintf("task-%04d", i))...); err != nil {
			t.Fatal(err)
		}
		idx.sync() // the trim the addition started, if any, is done before the next (as on a replica that sends slower than Redis trims)
	}
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

// TestListingOfAnUnsentTask: a task listed in its record's batch, then
// withdrawn because its send failed, is taken off the list again; a
// listing whose op was never made (refused before the batch) removes
// nothing.
func TestListingOfAnUnsentTask(t *testing.T) {
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	idx := newTaskIndex(mem, 10, time.Now, func(err error) { t.Error(err) })
	kept, unsent := idx.listing("Alice"), idx.listing("Alice")
	ctx := context.Background()
	if _, err := mem.Batch(ctx, append(kept.ops("task-kept"), unsent.ops("task-unsent")...)...); err != nil {
		t.Fatal(err)
	}
	unsent.remove()
	idx.listing("Alice").unsent() // never sent: nothing to remove
	key, err := memory.GatewayTasksIndex("Alice")
	if err != nil {
		t.Fatal(err)
	}
	members, err := mem.IndexRange(ctx, key, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 1 || members[0].Member != "task-kept" {
		t.Fatalf("listed %v, want only task-kept", members)
	}
}
