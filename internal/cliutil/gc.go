// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"os"
	"runtime/debug"
)

// DefaultGCPercent is the garbage collector's target the a2abus binaries run
// with when GOGC is not set. a2abus processes keep a small live heap (a few
// MB) and allocate per message, so Go's default of 100 collects many times a
// second under load; 400 trades a few MB of heap for a fraction of that GC
// work. Set GOGC to choose another value, and GOMEMLIMIT (the manifests
// derive it from the container's memory limit) to bound the heap.
const DefaultGCPercent = 400

// OneShotGCPercent is the target of research-agent, a one-shot job (one
// task, then exit): with DefaultGCPercent its heap may reach 16 MB (Go's
// 4 MB minimum heap times 4) before a second collection, which is most of
// the job's memory; Go's default keeps it at 4 MB, for a few more
// collections in a run of well under a second (docs/performance.md).
const OneShotGCPercent = 100

// TuneGC applies DefaultGCPercent unless the GOGC environment variable is set.
func TuneGC() { TuneGCTo(DefaultGCPercent) }

// TuneGCTo applies percent unless the GOGC environment variable is set.
func TuneGCTo(percent int) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
	}
}
