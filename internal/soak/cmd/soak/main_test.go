// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/soak"
)

// envMain makes the test binary this command: the interrupted run of
// TestRunInterruptedStopsWithinABound and the agents and callers it starts
// (they inherit it), whose value marks them.
const envMain = "SOAK_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envMain) != "" {
		main()
		return
	}
	os.Exit(m.Run())
}

// interruptBound bounds the interrupted run's exit in the test: the run's
// own bounds (a fault's grace, a process's stop) and the teardown, with room.
const interruptBound = 3 * time.Minute

// TestRunInterruptedStopsWithinABound: `soak run` whose load is stalled
// (no broker: every agent and caller fails at start and is restarted, the
// one-shot callers too, while the faults kill them) stops on SIGINT: it
// prints its summary marked interrupted, exits non-zero, and leaves no
// process of its own running.
func TestRunInterruptedStopsWithinABound(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	ctx := context.Background()
	rd, err := soak.StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Stop()
	mark := "interrupt-" + filepath.Base(t.TempDir())
	cmd := exec.Command(os.Args[0], "run")
	cmd.Env = append(os.Environ(), envMain+"="+mark, "TMPDIR="+t.TempDir(), "SOAK_SHARED=1", "SOAK_SHARED_FAULTS=0",
		"A2ABUS_TEST_AMQP_URL=amqp://guest:guest@127.0.0.1:1/", "A2ABUS_TEST_REDIS_URL="+rd.URL,
		"SOAK_TASKS=1000", "SOAK_DURATION=10m", "SOAK_FAULT_GAP=300ms", "SOAK_ONESHOTS=1", "SOAK_DRAIN=5s")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the faults hit the stalled load.
	faulted := make(chan struct{})
	var logged bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			logged.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), "INFO\tfault\t") {
				seen = true
				close(faulted)
			}
		}
	}()
	select {
	case <-faulted:
	case <-time.After(interruptBound):
		_ = cmd.Process.Kill()
		t.Fatal("no fault injected")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(interruptBound):
		_ = cmd.Process.Kill()
		t.Fatalf("soak run still running %s after SIGINT", interruptBound)
	}
	var exit *exec.ExitError
	if !errors.As(werr, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1; stderr:\n%s", werr, lastLines(logged.String(), 15))
	}
	var sum soak.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || !sum.Interrupted {
		t.Errorf("summary %q (%v): want one marked interrupted", stdout.String(), err)
	}
	if left := marked(mark); len(left) > 0 {
		t.Errorf("processes of the run left running: %v", left)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// marked lists the pids of the processes whose environment holds envMain=mark.
func marked(mark string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(envMain+"="+mark+"\x00")) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(d), &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
