// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `a2abus console` refuses an address other than loopback without a
// token, and a token file it cannot use, naming why.
func TestConsoleRefusesAnOpenAddressWithoutAToken(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "console", "--embedded", "--listen", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "other than loopback needs a token") {
		t.Errorf("console --listen 0.0.0.0:0: exit %d, stderr %q, stdout %q; want 1 naming the token", code, errOut, out)
	}
	short := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(short, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "console", "--embedded", "--token-file", short)
	if code != 1 || !strings.Contains(errOut, "at least 16 bytes") {
		t.Errorf("a 5-byte token: exit %d, stderr %q; want 1 naming the length", code, errOut)
	}
	code, _, errOut = runCLI(t, "console", "--embedded", "--actions")
	if code != 1 || !strings.Contains(errOut, "actions need a token") {
		t.Errorf("--actions without a token: exit %d, stderr %q; want 1 naming the token", code, errOut)
	}
	code, _, errOut = runCLI(t, "console", "--embedded", "--token-file", filepath.Join(t.TempDir(), "missing"))
	if code != 1 || !strings.Contains(errOut, "missing") {
		t.Errorf("a missing token file: exit %d, stderr %q; want 1 naming the file", code, errOut)
	}
}

// `a2abus demo --console` serves the console of its mesh and prints its URL
// before the first step.
func TestDemoServesAConsole(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "demo", "--console", "--console-linger", "10ms", "--log-level", "error")
	if code != 0 {
		t.Fatalf("demo --console: exit %d\n%s\n%s", code, out, errOut)
	}
	url := strings.Index(out, "console: http://127.0.0.1:")
	if url < 0 || url > strings.Index(out, "1. invoke SampleAgent.echo") || !strings.Contains(out, "The console stays open for 10ms") {
		t.Errorf("demo --console printed no console URL before its steps:\n%s", out)
	}
}
