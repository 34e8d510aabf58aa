// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// doneCounting counts the calls of its Done: a cancelCtx makes its channel
// at the first.
type doneCounting struct {
	context.Context
	n *atomic.Int32
}

func (c doneCounting) Done() <-chan struct{} {
	c.n.Add(1)
	return c.Context.Done()
}

// A lone Batch flushes its own pipeline before it waits: it does not ask its
// context for a channel to wait on (an allocation a call on a context that
// had none).
func TestLoneBatchDoesNotWaitOnItsContext(t *testing.T) {
	m := open(t, testOptions(t))
	var n atomic.Int32
	ctx := doneCounting{Context: t.Context(), n: &n}
	if _, err := m.Batch(ctx, memory.Op{Kind: memory.OpSet, Key: "chaincpu-lone", Value: []byte("v"), TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("Done called %d times by a batch that flushed itself", got)
	}
}
