// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build !linux

package execbridge

import (
	"errors"
	"os"
)

// unreadInput is not known here (the write end of a pipe does not tell how
// much of it is unread): only the write deadline detects a child that does
// not read.
func unreadInput(*os.File) (int, error) { return 0, errors.ErrUnsupported }
