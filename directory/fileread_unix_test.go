// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package directory

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestFilesRefuseAFIFO: a FIFO as the well-known, known-agents or pins
// file is refused at once instead of waiting for a writer.
func TestFilesRefuseAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "agents.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for what, f := range map[string]func() error{
		"well-known file": func() error { _, err := LoadWellKnown(fifo); return err },
		"known-agents file": func() error {
			_, err := New(Options{Bus: embeddedBus(t), KnownAgentsFile: fifo})
			return err
		},
		"pins file": func() error {
			_, err := New(Options{Bus: embeddedBus(t), Trust: TrustTOFU, PinsFile: fifo})
			return err
		},
	} {
		err := within(t, what, f)
		if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("%s: err = %v, want ErrNotRegular naming a named pipe", what, err)
		}
	}
}
