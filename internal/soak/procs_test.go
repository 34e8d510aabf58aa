// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"syscall"
	"testing"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestProcsStopReachesARestartedProcess: a supervised process that died on
// its own is started again, and stop then ends the new one.
func TestProcsStopReachesARestartedProcess(t *testing.T) {
	p := &procs{exe: "/bin/sleep", dir: t.TempDir(), log: zap.NewNop()}
	c := &child{role: "1000", name: "x", supervised: true}
	if err := p.start(c); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	first := c.cmd.Process.Pid
	c.mu.Unlock()
	if err := syscall.Kill(first, syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	var second int
	testenv.Eventually(t, "the crashed process is started again", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		second = c.cmd.Process.Pid
		return second != first
	})
	p.stop(c)
	if err := syscall.Kill(second, 0); err == nil {
		t.Fatalf("process %d still runs after stop", second)
	}
	if n := p.crashCount(); n != 1 {
		t.Fatalf("%d crashes counted, want 1", n)
	}
}
