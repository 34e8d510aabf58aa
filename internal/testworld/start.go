// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testworld

import (
	"context"
	"errors"
	"testing"

	"github.com/a2abus/a2abus/internal/component"
)

// Runner is what Start runs: a caller, an agent or a directory.
type Runner interface {
	Run(ctx context.Context) error
	Close() error
}

// Start runs r in the background until the test ends; then it closes r and
// waits for Run, failing the test if Run returned an error other than one
// wrapping an error of ignore, or component.ErrClosed (Close came before Run
// began: a test may end before a part it did not need got going).
func Start(t testing.TB, r Runner, ignore ...error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := r.Run(context.Background())
		for _, ok := range append(ignore, component.ErrClosed) {
			if errors.Is(err, ok) {
				return
			}
		}
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() { _ = r.Close(); <-done })
}
