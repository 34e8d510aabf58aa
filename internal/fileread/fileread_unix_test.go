// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package fileread_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestReadRefusesAFIFO: opening a FIFO blocks until a writer comes; Read
// refuses it at once, named or reached through a link.
func TestReadRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "wf.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		_, err := readSoon(t, path, 1<<20)
		if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("Read(%s): err = %v, want ErrNotRegular naming a named pipe", path, err)
		}
	}
}
