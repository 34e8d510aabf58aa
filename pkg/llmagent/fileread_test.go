// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
)

// within runs f with a deadline, so a read that hangs fails the test.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running after 10s", what)
		return nil
	}
}

// TestLoadRefusesDevicesAndLargeFiles: an agent file (--agent-file) is a
// regular file of at most MaxFileBytes; anything else is refused unread,
// naming the path.
func TestLoadRefusesDevicesAndLargeFiles(t *testing.T) {
	err := within(t, "Load(/dev/zero)", func() error { _, err := Load("/dev/zero"); return err })
	if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("Load(/dev/zero) = %v, want ErrNotRegular naming it", err)
	}
	big := writeFile(t, t.TempDir(), "big.yaml", "# "+strings.Repeat("x", MaxFileBytes)+"\n"+validSpec)
	err = within(t, "Load(big)", func() error { _, err := Load(big); return err })
	if !errors.Is(err, fileread.ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("Load(a file over 1 MiB) = %v, want ErrTooLarge naming the file and the bound", err)
	}
}
