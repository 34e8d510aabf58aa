// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"fmt"
	"slices"

	"github.com/a2abus/a2abus/memory"
)

// StreamTail returns the values of the last n entries of the stream key
// (memory.StreamAddOp's), oldest first: XREVRANGE key + - COUNT n.
func (m *Memory) StreamTail(ctx context.Context, key string, n int) ([][]byte, error) {
	if err := memory.ValidateKey(key); err != nil {
		return nil, fmt.Errorf("stream tail %q: %w", key, err)
	}
	if n <= 0 {
		return nil, fmt.Errorf("stream tail %q: %w: n must be positive, got %d", key, memory.ErrInvalidArgument, n)
	}
	msgs, err := m.b.client.XRevRangeN(ctx, m.b.kvKey(key), "+", "-", int64(n)).Result()
	if err != nil {
		return nil, fmt.Errorf("stream tail %q: %w", key, classify(ctx, err))
	}
	out := make([][]byte, 0, len(msgs))
	for _, msg := range msgs {
		if v, ok := msg.Values[memory.StreamField].(string); ok {
			out = append(out, []byte(v))
		}
	}
	slices.Reverse(out)
	return out, nil
}
