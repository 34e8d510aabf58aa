// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package config

import (
	"fmt"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestLoadRefusesAFIFO: a FIFO as the configuration file, named or found
// by the search, is refused at once instead of waiting for a writer.
func TestLoadRefusesAFIFO(t *testing.T) {
	dir := isolate(t)
	fifo := testenv.FIFO(t, dir, FileName)
	for _, opts := range []LoadOptions{{File: fifo}, {SearchDirs: []string{dir}}} {
		testenv.WantError(t, fmt.Sprintf("Load(%+v)", opts), loadSoon(t, opts), fileread.ErrNotRegular, "named pipe")
	}
}
