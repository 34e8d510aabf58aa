// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package llmagent

import (
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestLoadRefusesAFIFO: a FIFO named *.yaml as --agent-file, or in its
// folder, used to hang start-up; it is refused at once, named.
func TestLoadRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", validSpec)
	fifo := testenv.FIFO(t, dir, "b.yaml")
	for what, f := range map[string]func() error{
		"Load":    func() error { _, err := Load(fifo); return err },
		"LoadDir": func() error { _, err := LoadDir(dir); return err },
	} {
		testenv.Refused(t, what+" with a FIFO", f, fileread.ErrNotRegular, fifo, "named pipe")
	}
}
