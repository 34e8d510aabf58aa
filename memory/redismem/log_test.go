// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
)

// goRedisLogChild, set in the environment, makes TestGoRedisLogsThroughZap
// run its dials (in the child process the test starts).
const goRedisLogChild = "A2ABUS_TEST_GOREDIS_LOG_CHILD"

// TestGoRedisLogsThroughZap: the lines go-redis logs itself (here, its pool
// failing to dial a closed port) reach the zap logger of the latest New given
// one, at warn level, and none reaches stderr. The dials run in a child
// process, so that its stderr holds only what they print.
func TestGoRedisLogsThroughZap(t *testing.T) {
	if os.Getenv(goRedisLogChild) == "1" {
		dialsLogThroughZap(t)
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestGoRedisLogsThroughZap$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), goRedisLogChild+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child process: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "--- PASS: TestGoRedisLogsThroughZap") {
		t.Fatalf("the child process did not run the dials:\n%s", &stdout)
	}
	if s := stderr.String(); strings.Contains(s, "redis:") || strings.Contains(s, "failed to dial") {
		t.Fatalf("go-redis wrote to stderr:\n%s", s)
	}
}

// dialsLogThroughZap makes three New calls fail to dial a closed port: with
// logger A, with logger B, then with none; A must see only the first line, B
// the other two. The timeout outlasts go-redis's dial attempts, so that each
// New returns after the line of its dial was logged.
func dialsLogThroughZap(t *testing.T) {
	coreA, logsA := observer.New(zapcore.DebugLevel)
	coreB, logsB := observer.New(zapcore.DebugLevel)
	dial := func(log *zap.Logger) {
		t.Helper()
		opts := redismem.Options{Addrs: []string{"127.0.0.1:1"}, Timeout: time.Minute, Logger: log}
		if _, err := redismem.New(context.Background(), opts); !errors.Is(err, memory.ErrUnavailable) {
			t.Fatalf("New on a closed port = %v, want ErrUnavailable", err)
		}
	}
	dialLines := func(logs *observer.ObservedLogs) int {
		t.Helper()
		n := 0
		for _, e := range logs.All() {
			if !strings.HasPrefix(e.Message, "go-redis: ") || !strings.Contains(e.Message, "127.0.0.1:1") {
				continue
			}
			if e.Level != zapcore.WarnLevel {
				t.Errorf("go-redis line at level %v, want warn: %q", e.Level, e.Message)
			}
			n++
		}
		return n
	}

	dial(zap.New(coreA))
	if n := dialLines(logsA); n == 0 {
		t.Fatalf("no go-redis line about the dial reached logger A; it logged %v", logsA.All())
	}
	before := dialLines(logsA)
	dial(zap.New(coreB))
	dial(nil)
	if n := dialLines(logsA); n != before {
		t.Errorf("logger A got %d more go-redis lines after New was given logger B", n-before)
	}
	if n := dialLines(logsB); n < 2 {
		t.Errorf("logger B got %d go-redis dial lines, want one from its New and one from the New without a logger", n)
	}
}
