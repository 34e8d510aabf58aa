// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package callers starts callers in a test world. It is apart from
// testworld because pkg/caller's own tests use testworld.
package callers

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Start returns a caller named name on w's bus and memory, running until the
// test ends, with a fast sweeper (50ms).
func Start(t testing.TB, w *testworld.World, name string) *caller.Caller {
	t.Helper()
	c, err := caller.New(caller.Options{Name: name, Bus: w.Connect(t), Memory: w.Memory, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	return c
}
