// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestLoadRefusesDevicesAndLargeFiles: a workflow file is a regular file of
// at most MaxFileBytes; anything else is refused unread, naming the path.
func TestLoadRefusesDevicesAndLargeFiles(t *testing.T) {
	testenv.Refused(t, "Load(/dev/zero)", func() error { _, err := workflow.Load("/dev/zero"); return err }, fileread.ErrNotRegular, "/dev/zero")
	big := filepath.Join(t.TempDir(), "big.yaml")
	src := "# " + strings.Repeat("x", workflow.MaxFileBytes) + "\nname: a\nsteps: [{id: s, agent: A, skill: k, text: t}]\n"
	if err := os.WriteFile(big, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Refused(t, "Load(a file over 1 MiB)", func() error { _, err := workflow.Load(big); return err }, fileread.ErrTooLarge, big, "1 MiB")
}
