// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// The command refuses to run without an agent, on the embedded bus or with
// a bad name (exit 1), and against an agent that is not running it prints
// the failed requirements and exits 2.
func TestConformanceCommand(t *testing.T) {
	isolate(t, "")
	if code, _, stderr := runCLI(t, "conformance"); code != 1 || !strings.Contains(stderr, `"agent" not set`) {
		t.Errorf("no --agent: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "conformance", "--agent", "X", "--embedded"); code != 1 || !strings.Contains(stderr, "bus.url is not set") {
		t.Errorf("embedded bus: exit %d, %q", code, stderr)
	}
	url := testenv.AMQPURL(t)
	if code, _, stderr := runCLI(t, "conformance", "--agent", "bad.name", "--amqp-url", url); code != 1 || !strings.Contains(stderr, "invalid options") {
		t.Errorf("bad name: exit %d, %q", code, stderr)
	}
	code, stdout, _ := runCLI(t, "conformance", "--agent", "ConfCliNobody", "--amqp-url", url, "--timeout", "1s",
		"--log-level", "error", "--max-attempts", "3")
	if code != 2 || !strings.Contains(stdout, "discovery") || !strings.Contains(stdout, "DOES NOT CONFORM") {
		t.Errorf("absent agent: exit %d\n%s", code, stdout)
	}
}
