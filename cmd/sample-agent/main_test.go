// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

func isolate(t *testing.T) { testenv.IsolateConfig(t, "") }

func TestSIGTERMStopsGracefully(t *testing.T) {
	isolate(t)
	var stderr testenv.Buffer
	code := make(chan int, 1)
	go func() { code <- run([]string{"--embedded", "--name", "SignalTest"}, &stderr) }()

	testenv.Eventually(t, "the agent started", func() bool {
		select {
		case c := <-code:
			t.Fatalf("exited %d before starting:\n%s", c, stderr.String())
		default:
		}
		return strings.Contains(stderr.String(), "agent started")
	}, testenv.Explain(stderr.String))
	// The signal handler is installed before the command runs.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != 0 || !strings.Contains(stderr.String(), "agent stopped") {
			t.Fatalf("exit %d, want 0 after a clean stop:\n%s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not stop the agent")
	}
}

func TestFailureExitsOneWithPrefix(t *testing.T) {
	isolate(t)
	var stderr testenv.Buffer
	if c := run([]string{"--max-tasks", "0"}, &stderr); c != 1 || stderr.String() != "sample-agent: --max-tasks must be at least 1, got 0\n" {
		t.Fatalf("exit %d, stderr %q", c, stderr.String())
	}
}

func TestVersion(t *testing.T) {
	isolate(t)
	var stderr testenv.Buffer
	stdout := captureStdout(t, func() {
		if c := run([]string{"version"}, &stderr); c != 0 {
			t.Fatalf("exit %d: %s", c, stderr.String())
		}
	})
	if !strings.HasPrefix(stdout, "sample-agent version dev (commit dev, built unknown, go") {
		t.Fatalf("stdout %q", stdout)
	}
}

// captureStdout returns what f writes on os.Stdout (run writes there).
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = saved }()
	f()
	_ = w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// TestTracingNotLinked: sample-agent links no OTLP exporter, so an OTLP
// endpoint in its environment stops it at start, naming what to do,
// instead of running untraced.
func TestTracingNotLinked(t *testing.T) {
	isolate(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(k, "")
	}
	var stderr testenv.Buffer
	c := run([]string{"--embedded", "--name", "TraceTest"}, &stderr)
	if c != 1 || !strings.Contains(stderr.String(), "no OTLP trace exporter") || !strings.Contains(stderr.String(), "a2abus serve --agent") {
		t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
	}
}
