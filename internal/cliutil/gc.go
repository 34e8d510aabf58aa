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

// TuneGC applies DefaultGCPercent unless the GOGC environment variable is set.
func TuneGC() { TuneGCTo(DefaultGCPercent) }

// TuneGCTo applies percent unless the GOGC environment variable is set.
func TuneGCTo(percent int) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
	}
}
