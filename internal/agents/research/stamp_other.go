// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build !linux

package research

import "io/fs"

// sysStamp is (0, 0) here: a file's stamp is its size and modification time.
func sysStamp(fs.FileInfo) (ino uint64, ctimeNanos int64) { return 0, 0 }
