// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package testenv

import (
	"path/filepath"
	"syscall"
	"testing"
)

// FIFO makes a named pipe dir/name and returns its path: a file whose
// opening waits for a writer, which every reader of files taken from
// outside must refuse at once.
func FIFO(tb testing.TB, dir, name string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		tb.Fatalf("mkfifo %s: %v", path, err)
	}
	return path
}
