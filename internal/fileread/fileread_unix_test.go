// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package fileread_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestReadRefusesAFIFO: opening a FIFO blocks until a writer comes; Read
// refuses it at once, named or reached through a link.
func TestReadRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, dir, "wf.yaml")
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		_, err := readSoon(t, path, 1<<20)
		testenv.WantError(t, "Read("+path+")", err, fileread.ErrNotRegular, "named pipe")
	}
}
