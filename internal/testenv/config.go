// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// IsolateConfig clears every A2ABUS_* variable for the test (empty counts
// as unset) and returns the path of a configuration file holding content,
// so a test sees only the configuration it sets. (It reads the environment
// rather than config.Keys: the packages config takes its defaults from use
// testenv in their own tests.)
func IsolateConfig(t *testing.T, content string) string {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "A2ABUS_") {
			t.Setenv(name, "")
		}
	}
	p := filepath.Join(t.TempDir(), "a2abus.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
