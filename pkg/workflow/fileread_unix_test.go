// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package workflow_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
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
	fifo := filepath.Join(dir, "b.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	err := within(t, "LoadDir", func() error { _, err := workflow.LoadDir(dir); return err })
	if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("LoadDir with a FIFO = %v, want ErrNotRegular naming %s", err, fifo)
	}
}
