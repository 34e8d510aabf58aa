// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	path := FIFO(t, dir, "pipe.yaml")
	st, err := os.Lstat(path)
	if path != filepath.Join(dir, "pipe.yaml") || err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("FIFO = %s: %v, %v; want a named pipe in %s", path, st, err, dir)
	}
}
