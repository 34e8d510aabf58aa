// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestLoadSigningKeyRefusesAFIFOAndALargeFile: the key file is a regular
// file of at most MaxSigningKeyFileBytes; a FIFO (mode 0600, so past the
// permission check) is refused at once instead of waiting for a writer.
func TestLoadSigningKeyRefusesAFIFOAndALargeFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "agent.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.key")
	if err := os.WriteFile(big, make([]byte, MaxSigningKeyFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{fifo: fileread.ErrNotRegular, big: fileread.ErrTooLarge} {
		done := make(chan error, 1)
		go func() { _, err := LoadSigningKey(path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadSigningKey(%s) = %v, want %v naming the file", filepath.Base(path), err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadSigningKey(%s) still running after 10s", filepath.Base(path))
		}
	}
}
