// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem

import (
	"context"
	"fmt"

	"github.com/a2abus/a2abus/memory"
)

// Batch runs ops one after the other (there is no round trip to save in
// process) and returns their results in op order.
func (m *backend) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if err := m.Ping(ctx); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	results := make([]memory.OpResult, len(ops))
	for i, o := range ops {
		r, err := m.run(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("batch op %d: %w", i, err)
		}
		results[i] = r
	}
	return results, nil
}

// run applies one op (memory.Checked validated it).
func (m *backend) run(ctx context.Context, o memory.Op) (memory.OpResult, error) {
	switch o.Kind {
	case memory.OpSet:
		return memory.OpResult{Applied: true}, m.Set(ctx, o.Key, o.Value, o.TTL)
	case memory.OpSetIfAbsent:
		set, err := m.SetIfAbsent(ctx, o.Key, o.Value, o.TTL)
		return memory.OpResult{Applied: set}, err
	case memory.OpDelete:
		return memory.OpResult{Applied: true}, m.Delete(ctx, o.Key)
	case memory.OpAppendTurnOnce:
		turn, appended, err := m.AppendTurnOnce(ctx, o.Session, o.OnceID, o.Turn)
		return memory.OpResult{Applied: appended, Turn: turn}, err
	case memory.OpIndexAdd:
		return memory.OpResult{Applied: true}, m.IndexAdd(ctx, o.Key, o.Member, o.Score)
	case memory.OpIndexRemove:
		return memory.OpResult{Applied: true}, m.IndexRemove(ctx, o.Key, o.Member)
	case memory.OpStreamAdd:
		m.mu.Lock()
		defer m.mu.Unlock()
		st := append(m.streams[o.Key], append([]byte(nil), o.Value...))
		if n := int64(len(st)); n > o.MaxLen {
			st = append(st[:0:0], st[n-o.MaxLen:]...)
		}
		m.streams[o.Key] = st
		return memory.OpResult{Applied: true}, nil
	}
	return memory.OpResult{}, o.Validate() // unreachable after memory.Checked: an unknown kind
}

// StreamTail returns the values of the last n entries of the stream key
// (memory.StreamAddOp's), oldest first.
func (m *Memory) StreamTail(ctx context.Context, key string, n int) ([][]byte, error) {
	if err := memory.ValidateKey(key); err != nil {
		return nil, fmt.Errorf("stream tail %q: %w", key, err)
	}
	if n <= 0 {
		return nil, fmt.Errorf("stream tail %q: %w: n must be positive, got %d", key, memory.ErrInvalidArgument, n)
	}
	if err := m.Ping(ctx); err != nil {
		return nil, fmt.Errorf("stream tail %q: %w", key, err)
	}
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	st := m.b.streams[key]
	st = st[max(len(st)-n, 0):]
	out := make([][]byte, len(st))
	for i, v := range st {
		out[i] = append([]byte(nil), v...)
	}
	return out, nil
}
