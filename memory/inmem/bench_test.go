// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem_test

import (
	"testing"

	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/memory/memorytest"
)

// BenchmarkMemory measures the calls of the invoke chain (memorytest.Bench):
// with no server to wait for, the figures are this package's own cost
// (validation included) and its allocations.
func BenchmarkMemory(b *testing.B) {
	m := inmem.New(inmem.Options{})
	b.Cleanup(func() { _ = m.Close() })
	memorytest.Bench(b, m)
}
