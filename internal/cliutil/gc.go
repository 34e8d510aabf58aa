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
// task, then exit). A job over the repository's docs allocates about 4 MB
// in all (start-up, dials, the docs read and indexed, one task): enough for
// Go's default of 100, whose first collection starts a little under its
// 4 MB minimum goal, to collect once in every job; at 200 (8 MB) the job
// ends without a collection, for some 9 ms less CPU and 0.8 MB less
// resident memory, where DefaultGCPercent's 16 MB goal would let a longer
// job's heap grow to most of its memory (docs/performance.md, round 6). One
// kept running (--ephemeral=false) holds up to three times its live heap.
const OneShotGCPercent = 200

// TuneGC applies DefaultGCPercent unless the GOGC environment variable is set.
func TuneGC() { TuneGCTo(DefaultGCPercent) }

// TuneGCTo applies percent unless the GOGC environment variable is set.
func TuneGCTo(percent int) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
	}
}
