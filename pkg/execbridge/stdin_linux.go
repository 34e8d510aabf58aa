// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build linux

package execbridge

import (
	"os"
	"syscall"
	"unsafe"
)

// unreadInput is how many bytes written to the pipe f (its write end) the
// child has not read yet (FIONREAD, which Linux answers on either end).
func unreadInput(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil {
		return 0, err
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
