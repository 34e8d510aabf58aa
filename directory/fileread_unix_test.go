// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package directory

import (
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestFilesRefuseAFIFO: a FIFO as the well-known, known-agents or pins
// file is refused at once instead of waiting for a writer.
func TestFilesRefuseAFIFO(t *testing.T) {
	fifo := testenv.FIFO(t, t.TempDir(), "agents.json")
	for what, f := range fileReaders(t, fifo) {
		testenv.Refused(t, what, f, fileread.ErrNotRegular, "named pipe")
	}
}
