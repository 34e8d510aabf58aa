// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
)

// appliedButFailed applies the first batch that records a task, then
// reports it failed as unavailable, as a Redis Cluster batch whose ops
// landed on a live primary and on one failing over.
type appliedButFailed struct {
	memory.Memory
	failed atomic.Bool
}

func (m *appliedButFailed) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	res, err := m.Memory.Batch(ctx, ops...)
	if err == nil && len(ops) > 0 && strings.HasPrefix(ops[0].Key, "a2a/tasks/") && m.failed.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("batch: %w: dial tcp: connection refused", memory.ErrUnavailable)
	}
	return res, err
}

// A task whose record batch failed after landing (in part) is withdrawn:
// claimed unsent, its record and pending entry removed, so that the
// sweeper never times out — and notifies — a task its caller was told was
// not sent (the cluster soak's Redis Cluster failovers found it).
func TestInvokeWithdrawsATaskWhoseRecordFailed(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	w.mem = &appliedButFailed{Memory: w.Memory}
	c := w.caller(w.N("Primary"), true)
	_, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Minute})
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("Invoke: %v, want the record's failure", err)
	}
	var pending []string
	testenv.Eventually(t, "the task withdrawn from the pending index", func() bool {
		pending, err = PendingTasks(ctxT(t), w.Memory, w.N("Primary"), 10)
		return err == nil && len(pending) == 0
	}, testenv.Explain(func() string { return fmt.Sprintf("pending %v, %v", pending, err) }))
	keys, err := w.Memory.List(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	var claimed, records int
	for _, k := range keys {
		if strings.HasPrefix(k, "a2a/tasks/") {
			records++
		}
		if strings.HasPrefix(k, "a2a/final/") {
			v, err := w.Memory.Get(ctxT(t), k)
			if err != nil || string(v) != claimUnsent {
				t.Errorf("claim %s = %q, %v; want %q (the sweeper can no longer time it out)", k, v, err, claimUnsent)
			}
			claimed++
		}
	}
	if records != 0 || claimed != 1 {
		t.Errorf("%d records and %d claims left (keys %v), want none and the unsent claim", records, claimed, keys)
	}
}
