// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package execbridge_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestLoadCardRefusesAFIFO: a FIFO as the card file is refused at once.
func TestLoadCardRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "card.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	if err := loadCardSoon(t, fifo); !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("LoadCard(FIFO) = %v, want ErrNotRegular naming a named pipe", err)
	}
}
