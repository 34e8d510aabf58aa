// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/execbridge"
)

// loadCard is LoadCard's error, for testenv.Refused.
func loadCard(path string) func() error {
	return func() error { _, err := execbridge.LoadCard(path); return err }
}

// TestLoadCardRefusesDevicesAndLargeFiles: --card /dev/zero used to read
// without end; a device is refused at once and a file over
// MaxCardFileBytes unparsed, each naming the path.
func TestLoadCardRefusesDevicesAndLargeFiles(t *testing.T) {
	testenv.Refused(t, "LoadCard(/dev/zero)", loadCard("/dev/zero"), fileread.ErrNotRegular, `"/dev/zero" is a character device`)
	big := filepath.Join(t.TempDir(), "card.json")
	padded := strings.Replace(childCard, "{", "{"+strings.Repeat(" ", execbridge.MaxCardFileBytes), 1)
	if err := os.WriteFile(big, []byte(padded), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Refused(t, "LoadCard(a card over 1 MiB)", loadCard(big), fileread.ErrTooLarge, big, "1 MiB")
}
