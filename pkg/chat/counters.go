// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/a2abus/a2abus/memory"
)

// readInt reads a decimal counter; a missing key is 0.
func readInt(ctx context.Context, m memory.Store, key string) (int64, error) {
	v, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("chat: %q holds %q, not a number: %w", key, v, err)
	}
	return n, nil
}

func intValue(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
