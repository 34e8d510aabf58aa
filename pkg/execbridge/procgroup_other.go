// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build !unix

package execbridge

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(*exec.Cmd) {}

// signalGroup signals p alone (SIGKILL kills it) where there are no
// process groups.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		return p.Kill()
	}
	return p.Signal(sig)
}

// killOrphans does nothing where there are no process groups.
func killOrphans(int) {}
