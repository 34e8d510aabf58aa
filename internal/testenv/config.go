package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abus/a2abus/config"
)

// IsolateConfig clears every A2ABUS_* configuration variable for the test
// (empty counts as unset) and returns the path of a configuration file
// holding content, so a test sees only the configuration it sets.
func IsolateConfig(t *testing.T, content string) string {
	t.Helper()
	for _, k := range config.Keys() {
		t.Setenv(config.EnvName(k), "")
	}
	p := filepath.Join(t.TempDir(), "a2abus.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
