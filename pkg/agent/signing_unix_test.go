// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestLoadSigningKeyRefusesAFIFOAndALargeFile: the key file is a regular
// file of at most MaxSigningKeyFileBytes; a FIFO (mode 0600, so past the
// permission check) is refused at once instead of waiting for a writer.
func TestLoadSigningKeyRefusesAFIFOAndALargeFile(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.FIFO(t, dir, "agent.key")
	big := filepath.Join(dir, "big.key")
	if err := os.WriteFile(big, make([]byte, MaxSigningKeyFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{fifo: fileread.ErrNotRegular, big: fileread.ErrTooLarge} {
		load := func() error { _, err := LoadSigningKey(path); return err }
		testenv.Refused(t, "LoadSigningKey("+filepath.Base(path)+")", load, want, path)
	}
}
