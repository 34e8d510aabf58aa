package main

import (
	"bytes"
	"github.com/a2abus/a2abus/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func isolate(t *testing.T) { testenv.IsolateConfig(t, "") }

func TestOneShotExitsCleanlyWhenIdle(t *testing.T) {
	isolate(t)
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\ntext"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	// On the embedded bus nobody can send it a task: it idles out and exits 0.
	if c := run([]string{"--docs", docs, "--idle-timeout", "50ms"}, &stderr); c != 0 {
		t.Fatalf("exit %d:\n%s", c, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"ephemeral":true`) {
		t.Errorf("not one-shot by default:\n%s", stderr.String())
	}
}

func TestFailureExitsOneWithPrefix(t *testing.T) {
	isolate(t)
	var stderr bytes.Buffer
	if c := run([]string{"--config", filepath.Join(t.TempDir(), "missing.yaml")}, &stderr); c != 1 || !strings.HasPrefix(stderr.String(), "research-agent: config: read file") {
		t.Fatalf("exit %d, stderr %q", c, stderr.String())
	}
}
