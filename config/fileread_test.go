// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
)

// loadSoon runs Load with a deadline, so a read that hangs fails the test.
func loadSoon(t *testing.T, opts LoadOptions) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(opts)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("Load(%q) still running after 10s", opts.File)
		return nil
	}
}

// TestLoadRefusesADeviceAtOnce: --config /dev/zero used to read without end
// (24 GB); a device is refused before anything is read, naming it.
func TestLoadRefusesADeviceAtOnce(t *testing.T) {
	isolate(t)
	for _, path := range []string{"/dev/zero", os.DevNull} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		err := loadSoon(t, LoadOptions{File: path})
		if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("Load(%s): err = %v, want ErrNotRegular naming the device", path, err)
		}
	}
}

// TestLoadRefusesALargeFile: a file past MaxFileBytes is refused, naming the bound.
func TestLoadRefusesALargeFile(t *testing.T) {
	dir := isolate(t)
	big := "# " + strings.Repeat("x", MaxFileBytes) + "\nlog:\n  level: debug\n"
	path := writeFile(t, dir, "big.yaml", big)
	err := loadSoon(t, LoadOptions{File: path})
	if !errors.Is(err, fileread.ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrTooLarge naming the file and the 1 MiB bound", err)
	}
	ok := writeFile(t, dir, "ok.yaml", "log:\n  level: debug\n")
	if err := loadSoon(t, LoadOptions{File: ok}); err != nil {
		t.Fatalf("a small file: %v", err)
	}
}

// TestLoadMissingFileSaysOpen: a missing file is reported as os.ReadFile did.
func TestLoadMissingFileSaysOpen(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "none.yaml")
	err := loadSoon(t, LoadOptions{File: path})
	if want := "config: read file: open " + path + ": no such file or directory"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
