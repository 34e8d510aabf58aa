// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testworld

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// DownMemory is a working memory that a test takes down for a while, as
// a Redis outage does: while Down holds, its reads and writes (Set, Get,
// GetMany, SetIfAbsent, CompareAndSet, CompareAndDelete, Turns, IndexScore,
// IndexRange, Batch) fail with memory.ErrUnavailable, each failure counted
// in Fails.
type DownMemory struct {
	memory.Memory
	Down  atomic.Bool
	Fails atomic.Int64
}

func (m *DownMemory) err(op string) error {
	if m.Down.Load() {
		m.Fails.Add(1)
		return fmt.Errorf("%s: %w: connection refused", op, memory.ErrUnavailable)
	}
	return nil
}

// Set is the memory's Set, failing while Down holds.
func (m *DownMemory) Set(ctx context.Context, k string, v []byte, ttl time.Duration) error {
	if err := m.err("set"); err != nil {
		return err
	}
	return m.Memory.Set(ctx, k, v, ttl)
}

// Get is the memory's Get, failing while Down holds.
func (m *DownMemory) Get(ctx context.Context, k string) ([]byte, error) {
	if err := m.err("get"); err != nil {
		return nil, err
	}
	return m.Memory.Get(ctx, k)
}

// GetMany is the memory's GetMany, failing while Down holds.
func (m *DownMemory) GetMany(ctx context.Context, keys ...string) ([][]byte, error) {
	if err := m.err("get many"); err != nil {
		return nil, err
	}
	return m.Memory.GetMany(ctx, keys...)
}

// SetIfAbsent is the memory's SetIfAbsent, failing while Down holds.
func (m *DownMemory) SetIfAbsent(ctx context.Context, k string, v []byte, ttl time.Duration) (bool, error) {
	if err := m.err("setnx"); err != nil {
		return false, err
	}
	return m.Memory.SetIfAbsent(ctx, k, v, ttl)
}

// CompareAndSet is the memory's CompareAndSet, failing while Down holds.
func (m *DownMemory) CompareAndSet(ctx context.Context, k string, old, v []byte, ttl time.Duration) (bool, error) {
	if err := m.err("compare and set"); err != nil {
		return false, err
	}
	return m.Memory.CompareAndSet(ctx, k, old, v, ttl)
}

// CompareAndDelete is the memory's CompareAndDelete, failing while Down holds.
func (m *DownMemory) CompareAndDelete(ctx context.Context, k string, old []byte) (bool, error) {
	if err := m.err("compare and delete"); err != nil {
		return false, err
	}
	return m.Memory.CompareAndDelete(ctx, k, old)
}

// Turns is the memory's Turns, failing while Down holds.
func (m *DownMemory) Turns(ctx context.Context, s string, after int64, limit int) ([]memory.Turn, error) {
	if err := m.err("turns"); err != nil {
		return nil, err
	}
	return m.Memory.Turns(ctx, s, after, limit)
}

// IndexScore is the memory's IndexScore, failing while Down holds.
func (m *DownMemory) IndexScore(ctx context.Context, index, member string) (int64, bool, error) {
	if err := m.err("zscore"); err != nil {
		return 0, false, err
	}
	return m.Memory.IndexScore(ctx, index, member)
}

// IndexRange is the memory's IndexRange, failing while Down holds.
func (m *DownMemory) IndexRange(ctx context.Context, index string, hi int64, limit int) ([]memory.IndexMember, error) {
	if err := m.err("zrange"); err != nil {
		return nil, err
	}
	return m.Memory.IndexRange(ctx, index, hi, limit)
}

// Batch is the memory's Batch, failing while Down holds.
func (m *DownMemory) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if err := m.err("batch"); err != nil {
		return nil, err
	}
	return m.Memory.Batch(ctx, ops...)
}
