// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/execbridge"
)

// loadCardSoon runs LoadCard with a deadline, so a read that hangs fails the test.
func loadCardSoon(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := execbridge.LoadCard(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("LoadCard(%q) still running after 10s", path)
		return nil
	}
}

// TestLoadCardRefusesDevicesAndLargeFiles: --card /dev/zero used to read
// without end; a device is refused at once and a file over
// MaxCardFileBytes unparsed, each naming the path.
func TestLoadCardRefusesDevicesAndLargeFiles(t *testing.T) {
	err := loadCardSoon(t, "/dev/zero")
	if !errors.Is(err, fileread.ErrNotRegular) || !strings.Contains(err.Error(), `"/dev/zero" is a character device`) {
		t.Errorf("LoadCard(/dev/zero) = %v, want ErrNotRegular naming it", err)
	}
	big := filepath.Join(t.TempDir(), "card.json")
	padded := strings.Replace(childCard, "{", "{"+strings.Repeat(" ", execbridge.MaxCardFileBytes), 1)
	if err := os.WriteFile(big, []byte(padded), 0o600); err != nil {
		t.Fatal(err)
	}
	err = loadCardSoon(t, big)
	if !errors.Is(err, fileread.ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("LoadCard(a card over 1 MiB) = %v, want ErrTooLarge naming the file and the bound", err)
	}
}
