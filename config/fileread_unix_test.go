// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestLoadRefusesAFIFO: a FIFO as the configuration file, named or found
// by the search, is refused at once instead of waiting for a writer.
func TestLoadRefusesAFIFO(t *testing.T) {
	dir := isolate(t)
	fifo := filepath.Join(dir, FileName)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for _, opts := range []LoadOptions{{File: fifo}, {SearchDirs: []string{dir}}} {
		err := loadSoon(t, opts)
		if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("Load(%+v): err = %v, want ErrNotRegular naming a named pipe", opts, err)
		}
	}
}
