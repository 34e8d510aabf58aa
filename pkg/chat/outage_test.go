// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/chat"
)

// failingBatches fails the next n batches (a run's stored steps) with
// memory.ErrUnavailable, as Redis does while it is down.
type failingBatches struct {
	memory.Memory
	n atomic.Int64
}

func (f *failingBatches) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if f.n.Add(-1) >= 0 {
		return nil, fmt.Errorf("batch: %w: connection refused", memory.ErrUnavailable)
	}
	return f.Memory.Batch(ctx, ops...)
}

// A run whose answer cannot be stored for a while (more than the four
// attempts a step had before) rides the outage out with memory.Retry and
// answers, instead of recording a "memory" failure.
func TestRunRidesOutAMemoryOutage(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		flaky := &failingBatches{Memory: w.Memory}
		srv := llmtest.New(t, llmtest.Reply{Content: "hello back"})
		s := r.open(t, srv, r.caller, func(o *chat.Options) { o.Memory = flaky })
		flaky.n.Store(7)
		user, err := s.Send(ctx, "hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := s.WaitAnswer(ctx, user.Seq)
		if err != nil || ans.Content != "hello back" || flaky.n.Load() >= 0 {
			t.Fatalf("answer %q (%s), %v; failures left %d", ans.Content, ans.Meta[chat.MetaErrorCode], err, flaky.n.Load())
		}
	})
}
