// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package oneshotgc sets the garbage collector's target of a one-shot job
// (research-agent: one task, then exit) to Percent unless the GOGC
// variable is set. A main imports it for that effect alone:
//
//	import _ "github.com/a2abus/a2abus/internal/cliutil/oneshotgc"
//
// It is a package of its own, importing nothing but os and runtime/debug,
// so that the setting is in force before the packages that allocate while
// they are initialised (the JSON Schema library's meta-schemas, 1.7 MB;
// the configuration's defaults): Go initialises, among the packages whose
// imports are initialised, the first by import path (the language
// specification, "Package initialization"), and this one comes before
// them. Set in main, as the other binaries' target is (cliutil.TuneGC),
// the start-up would run at Go's default and its heap reach the 4 MB that
// default allows before the first collection. Nothing but a one-shot main
// may import it: it would set the target of any program.
package oneshotgc

import (
	"os"
	"runtime/debug"
)

// Percent is the target of a one-shot job. A job's live heap is small
// (1–2 MB after start, a few MB during a task over a docs folder) and it
// lives for a fraction of a second, so its resident memory is the peak the
// heap reaches between collections: at Go's default of 100 the heap grows
// to at least 4 MB before the first, at 50 to 2 MB, for a few more
// collections of a small heap (docs/performance.md, "The one-shot job").
const Percent = 50

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}
