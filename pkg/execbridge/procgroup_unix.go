// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package execbridge

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd the leader of a process group of its own, so
// that stopping it reaches what it started too (a shell's children, a
// runtime's workers), not just the process itself.
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group p leads; if that fails (the
// group is gone or was never formed), to p alone.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if err := syscall.Kill(-p.Pid, sig); err == nil {
		return nil
	}
	return p.Signal(sig)
}

// killOrphans kills what is left of the process group of a leader that has
// exited: nothing outlives the agent process it belonged to (nor holds its
// output pipes open).
func killOrphans(leader int) { _ = syscall.Kill(-leader, syscall.SIGKILL) }
