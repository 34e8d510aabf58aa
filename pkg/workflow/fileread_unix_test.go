// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package workflow_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestLoadDirRefusesAFIFO: a FIFO named *.yaml in the workflows folder
// (the Orchestrator's --workflows) used to hang start-up; it is refused at
// once, named.
func TestLoadDirRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	ok := "name: a\nsteps: [{id: s, agent: A, skill: k, text: t}]\n"
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(ok), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := testenv.FIFO(t, dir, "b.yaml")
	testenv.Refused(t, "LoadDir with a FIFO", func() error { _, err := workflow.LoadDir(dir); return err }, fileread.ErrNotRegular, fifo, "named pipe")
}
