// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/agent"
)

// batchLog records the batches written through it.
type batchLog struct {
	memory.Memory
	mu      sync.Mutex
	batches [][]memory.Op
}

func (l *batchLog) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	l.mu.Lock()
	l.batches = append(l.batches, slices.Clone(ops))
	l.mu.Unlock()
	return l.Memory.Batch(ctx, ops...)
}

// TestRecordAlsoRidesInTheRecordsBatch: the writes a Request's RecordAlso
// gives for the new task's id are in the batch that records the task, so
// they are in working memory when Invoke returns; a watched invoke does
// the same, and a refused request never asks for them.
func TestRecordAlsoRidesInTheRecordsBatch(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
		log := &batchLog{Memory: w.mem}
		c := w.caller(n("Primary"), true, func(o *Options) { o.Memory = log })
		index, err := memory.GatewayTasksIndex(n("Alice"))
		if err != nil {
			t.Fatal(err)
		}
		var asked []string
		also := func(taskID string) []memory.Op {
			asked = append(asked, taskID)
			return []memory.Op{memory.IndexAddOp(index, taskID, 1)}
		}
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", RecordAlso: also})
		if err != nil {
			t.Fatal(err)
		}
		watched, watch, err := c.InvokeWatched(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", RecordAlso: also})
		if err != nil {
			t.Fatal(err)
		}
		watch.Close()
		if _, err := c.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", RecordAlso: also}); err == nil {
			t.Fatal("a request without text was sent")
		}
		if want := []string{inv.TaskID, watched.TaskID}; !slices.Equal(asked, want) {
			t.Fatalf("RecordAlso asked for %v, want %v", asked, want)
		}
		for _, id := range asked {
			recKey, err := memory.TaskRecordKey(n("Primary"), id)
			if err != nil {
				t.Fatal(err)
			}
			if !log.sameBatch(recKey, index, id) {
				t.Errorf("task %s: its listing is not in the batch that records it: %+v", id, log.batches)
			}
			if _, ok, err := w.mem.IndexScore(context.Background(), index, id); err != nil || !ok {
				t.Errorf("task %s not in %s when Invoke returned: %v, %v", id, index, ok, err)
			}
		}
	})
}

// sameBatch reports whether one batch both sets recKey and adds member to index.
func (l *batchLog) sameBatch(recKey, index, member string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.batches {
		set := slices.ContainsFunc(b, func(op memory.Op) bool { return op.Kind == memory.OpSet && op.Key == recKey })
		added := slices.ContainsFunc(b, func(op memory.Op) bool {
			return op.Kind == memory.OpIndexAdd && op.Key == index && op.Member == member
		})
		if set && added {
			return true
		}
	}
	return false
}
