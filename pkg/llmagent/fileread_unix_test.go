// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package llmagent

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
)

// TestLoadRefusesAFIFO: a FIFO named *.yaml as --agent-file, or in its
// folder, used to hang start-up; it is refused at once, named.
func TestLoadRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", validSpec)
	fifo := filepath.Join(dir, "b.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for what, f := range map[string]func() error{
		"Load":    func() error { _, err := Load(fifo); return err },
		"LoadDir": func() error { _, err := LoadDir(dir); return err },
	} {
		err := within(t, what, f)
		if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("%s with a FIFO = %v, want ErrNotRegular naming %s", what, err, fifo)
		}
	}
}
