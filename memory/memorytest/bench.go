// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"bytes"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// Bench measures the calls of the invoke chain (Set, Get, Batch,
// AppendTurnOnce) on m, through memory.Memory as its callers make them, one
// sub-benchmark each, with their allocations. Backends call it from their
// BenchmarkMemory.
func Bench(b *testing.B, m memory.Memory) {
	ctx := b.Context()
	value := bytes.Repeat([]byte("v"), 256)
	const key, session = "session/s1/a2a/Agent/t1/result", "s1"
	turn := memory.Turn{Role: memory.RoleTool, Content: "done", Meta: map[string]string{"task": "t1"}}
	if err := m.Set(ctx, key, value, time.Minute); err != nil {
		b.Fatal(err)
	}

	b.Run("Set", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := m.Set(ctx, key, value, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Get(ctx, key); err != nil {
				b.Fatal(err)
			}
		}
	})
	ops := []memory.Op{
		memory.SetOp(key, value, time.Minute),
		memory.AppendTurnOnceOp(session, "notify/t1/result", turn),
		memory.IndexRemoveOp("caller/pending", "t1"),
	}
	b.Run("Batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Batch(ctx, ops...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendTurnOnce", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := m.AppendTurnOnce(ctx, session, "notify/t1/result", turn); err != nil {
				b.Fatal(err)
			}
		}
	})
}
