// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// loadSoon runs Load under testenv.Returns, so a read that hangs fails the test.
func loadSoon(t *testing.T, opts LoadOptions) error {
	t.Helper()
	return testenv.Returns(t, fmt.Sprintf("Load(%+v)", opts), func() error { _, err := Load(opts); return err })
}

// TestLoadRefusesADeviceAtOnce: --config /dev/zero used to read without end
// (24 GB); a device is refused before anything is read, naming it.
func TestLoadRefusesADeviceAtOnce(t *testing.T) {
	isolate(t)
	for _, path := range []string{"/dev/zero", os.DevNull} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		testenv.WantError(t, "Load("+path+")", loadSoon(t, LoadOptions{File: path}), fileread.ErrNotRegular, path, "character device")
	}
}

// TestLoadRefusesALargeFile: a file past MaxFileBytes is refused, naming the bound.
func TestLoadRefusesALargeFile(t *testing.T) {
	dir := isolate(t)
	big := "# " + strings.Repeat("x", MaxFileBytes) + "\nlog:\n  level: debug\n"
	path := writeFile(t, dir, "big.yaml", big)
	if !testenv.WantError(t, "Load(big.yaml)", loadSoon(t, LoadOptions{File: path}), fileread.ErrTooLarge, path, "1 MiB") {
		t.FailNow()
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
