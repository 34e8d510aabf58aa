// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/sbom"
)

func TestRun(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a program"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, epoch string
		args        []string
		code        int
		stderr      string
	}{
		{"no binary", "", nil, 2, "usage: sbom"},
		{"two binaries", "", []string{exe, exe}, 2, "want one binary, got 2 arguments"},
		{"unknown flag", "", []string{"-x", exe}, 2, "usage: sbom"},
		{"not a Go binary", "", []string{text}, 1, "sbom: no Go build information in \"" + text + "\""},
		{"bad epoch", "yesterday", []string{exe}, 1, `SOURCE_DATE_EPOCH="yesterday": want seconds since 1970`},
	} {
		t.Setenv("SOURCE_DATE_EPOCH", c.epoch)
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.stderr) || stdout.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q, stdout %d bytes; want exit %d naming %q", c.name, code, stderr.String(), stdout.Len(), c.code, c.stderr)
		}
	}

	t.Setenv("SOURCE_DATE_EPOCH", "1764180180")
	out := filepath.Join(dir, "a.cdx.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-name", "a2abus", "-version", "v1.2.3", "-o", out, exe}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var bom sbom.BOM
	if err := json.Unmarshal(doc, &bom); err != nil {
		t.Fatal(err)
	}
	if c := bom.Metadata.Component; c.Name != "a2abus" || c.Version != "v1.2.3" || bom.Metadata.Timestamp != "2025-11-26T18:03:00Z" {
		t.Errorf("name %q, version %q, timestamp %q", c.Name, c.Version, bom.Metadata.Timestamp)
	}
	if code := run([]string{"-name", "a2abus", "-version", "v1.2.3", exe}, &stdout, &stderr); code != 0 || !bytes.Equal(stdout.Bytes(), doc) {
		t.Errorf("standard output differs from the file written for the same binary and time (exit %d)", code)
	}
}
