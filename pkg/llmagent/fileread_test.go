// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestLoadRefusesDevicesAndLargeFiles: an agent file (--agent-file) is a
// regular file of at most MaxFileBytes; anything else is refused unread,
// naming the path.
func TestLoadRefusesDevicesAndLargeFiles(t *testing.T) {
	testenv.Refused(t, "Load(/dev/zero)", func() error { _, err := Load("/dev/zero"); return err }, fileread.ErrNotRegular, "/dev/zero")
	big := writeFile(t, t.TempDir(), "big.yaml", "# "+strings.Repeat("x", MaxFileBytes)+"\n"+validSpec)
	testenv.Refused(t, "Load(a file over 1 MiB)", func() error { _, err := Load(big); return err }, fileread.ErrTooLarge, big, "1 MiB")
}
