// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build !race

package caller

// raceEnabled: the race detector is on, and allocation counts are its own.
const raceEnabled = false
