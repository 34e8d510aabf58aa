// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"io/fs"
	"syscall"
)

// sysStamp is the inode and change time (Unix nanoseconds) of a file
// described by info: a file replaced by another one, or whose permissions
// changed, shows in them even when its size and modification time did not.
func sysStamp(info fs.FileInfo) (ino uint64, ctimeNanos int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}
