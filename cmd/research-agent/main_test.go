// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testenv"
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
	if c := run([]string{"--embedded", "--docs", docs, "--idle-timeout", "50ms"}, &stderr); c != 0 {
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

func TestVersion(t *testing.T) {
	isolate(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	var stderr bytes.Buffer
	c := run([]string{"version"}, &stderr)
	os.Stdout = saved
	_ = w.Close()
	out, _ := io.ReadAll(r)
	if c != 0 || !strings.HasPrefix(string(out), "research-agent version dev (commit dev, built unknown, go") {
		t.Fatalf("exit %d, stdout %q, stderr %q", c, out, stderr.String())
	}
}

// TestModelNotLinked: research-agent links no model client, so a
// configuration that gives ResearchAgent a model is refused at start,
// naming what to do, instead of answering without the model.
func TestModelNotLinked(t *testing.T) {
	isolate(t)
	t.Setenv("A2ABUS_LLM_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("A2ABUS_LLM_MODEL", "m")
	var stderr bytes.Buffer
	c := run([]string{"--embedded", "--docs", t.TempDir(), "--idle-timeout", "50ms"}, &stderr)
	if c != 1 || !strings.Contains(stderr.String(), "no model client is linked") || !strings.Contains(stderr.String(), "a2abus serve --agent ResearchAgent") {
		t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
	}
}

// TestWebBackendLinked: research-agent registers the web backend, so a
// configured search endpoint starts ResearchAgent (it idles out: the
// embedded bus brings no task) instead of failing with ErrWebNotLinked.
func TestWebBackendLinked(t *testing.T) {
	isolate(t)
	t.Setenv("A2ABUS_RESEARCH_SEARCH_URL", "http://127.0.0.1:1")
	var stderr bytes.Buffer
	if c := run([]string{"--embedded", "--idle-timeout", "50ms"}, &stderr); c != 0 {
		t.Fatalf("exit %d:\n%s", c, stderr.String())
	}
}

// TestJobGCPercent: the job's allocations (about 4 MB over the repository's
// docs) stay well under the heap goal of a first collection, Go's 4 MB
// minimum scaled by the target: at 100 every job collects once.
func TestJobGCPercent(t *testing.T) {
	if goal := 4 * cliutil.OneShotGCPercent / 100; goal < 6 {
		t.Fatalf("GC percent %d: a first collection near %d MB, within reach of a job's 4 MB of allocations", cliutil.OneShotGCPercent, goal)
	}
}
