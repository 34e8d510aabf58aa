// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
)

// A response's memory retries end at its bound (MemoryRetryBound after it
// arrived) though its context carries no deadline: near the bound every
// attempt runs under it, far from it the first attempt runs without a timer
// and the retries under the deadline. Without the bound the retries of an
// op that keeps failing would never end.
func TestRetryEndsAtTheResponsesBound(t *testing.T) {
	c := &Caller{log: zap.NewNop()}
	saved := retryBoundNear
	t.Cleanup(func() { retryBoundNear = saved })
	for name, near := range map[string]time.Duration{"near": time.Minute, "far": 0} {
		t.Run(name, func(t *testing.T) {
			retryBoundNear = near
			ctx := &retryBound{Context: context.Background(), at: time.Now().Add(300 * time.Millisecond)}
			var attempts, undeadlined int
			err := c.retry(ctx, "store", func(ctx context.Context) error {
				attempts++
				if _, ok := ctx.Deadline(); !ok {
					undeadlined++
				}
				return fmt.Errorf("%w: down", memory.ErrUnavailable)
			})
			if !errors.Is(err, errRetryBound) || !errors.Is(err, memory.ErrUnavailable) {
				t.Fatalf("retry = %v, want the bound's cause with the last error", err)
			}
			if attempts < 2 {
				t.Errorf("%d attempts, want retries until the bound", attempts)
			}
			if want := map[string]int{"near": 0, "far": 1}[name]; undeadlined != want {
				t.Errorf("%d attempts ran without the deadline, want %d", undeadlined, want)
			}
		})
	}
	// An error that waiting cannot cure ends at once, as memory.Retry ends it.
	ctx := &retryBound{Context: context.Background(), at: time.Now().Add(time.Hour)}
	boom := errors.New("boom")
	if err := c.retry(ctx, "load", func(context.Context) error { return boom }); !errors.Is(err, boom) || err.Error() != "load: boom" {
		t.Errorf("retry of a permanent failure = %v", err)
	}
}
