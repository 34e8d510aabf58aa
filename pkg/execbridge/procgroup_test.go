// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build linux

package execbridge_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/execbridge"
)

// familyCommand runs the test child in mode with a pid file for its grandchild.
func familyCommand(t *testing.T, mode string) (execbridge.Options, func() int) {
	opts := childCommand(t, mode)
	pidFile := t.TempDir() + "/grandchild.pid"
	opts.Env = append(opts.Env, pidFileEnv+"="+pidFile)
	grandchild := func() int {
		t.Helper()
		var pid int
		testenv.Eventually(t, "the child wrote its grandchild's pid", func() bool {
			b, err := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil && pid > 0
		})
		return pid
	}
	return opts, grandchild
}

// alive reports whether pid runs (a zombie, killed but not yet reaped by
// whoever inherited it, does not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z")
}

// Stopping an agent process that ignores the end of its input and SIGTERM
// kills what it started too (its process group), and does so without
// waiting for the grandchild that holds its output open.
func TestStopKillsWhatTheProcessStarted(t *testing.T) {
	opts, grandchild := familyCommand(t, "family")
	opts.StopTimeout, opts.DrainTimeout = 400*time.Millisecond, 5*time.Second
	core, logs := observer.New(zap.DebugLevel)
	opts.Logger = zap.New(core)
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := grandchild()
	if !alive(pid) {
		t.Fatalf("grandchild %d is not running before the stop", pid)
	}
	started := time.Now()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(started); took >= opts.DrainTimeout {
		t.Errorf("Close took %v: it waited for the grandchild's output (DrainTimeout %v)", took, opts.DrainTimeout)
	}
	testenv.Eventually(t, "the grandchild is killed with the process", func() bool { return !alive(pid) })
	if len(logs.FilterMessage("agent process did not stop: killing it").All()) != 1 {
		t.Errorf("the kill of a process deaf to SIGTERM is not logged once:\n%v", logs.All())
	}
}

// An agent process that exits leaves nothing running behind it: what is
// left of its process group is killed as soon as it is gone.
func TestExitedProcessLeavesNoOrphans(t *testing.T) {
	opts, grandchild := familyCommand(t, "orphaning")
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	_ = b.Start(context.Background()) // the card may come before the exit, or not
	pid := grandchild()
	testenv.Eventually(t, "the orphaned grandchild is killed", func() bool { return !alive(pid) })
}
