// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package oneshotgc

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestInitSetsPercent: importing the package sets the collector's target
// to Percent, unless GOGC was set when the process started.
func TestInitSetsPercent(t *testing.T) {
	got := debug.SetGCPercent(100)
	defer debug.SetGCPercent(got)
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the package leaves the target as GOGC says")
	}
	if got != Percent {
		t.Fatalf("GC percent after the package's init = %d, want %d", got, Percent)
	}
}
