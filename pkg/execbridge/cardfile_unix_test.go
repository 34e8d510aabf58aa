// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build unix

package execbridge_test

import (
	"testing"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/internal/testenv"
)

// TestLoadCardRefusesAFIFO: a FIFO as the card file is refused at once.
func TestLoadCardRefusesAFIFO(t *testing.T) {
	fifo := testenv.FIFO(t, t.TempDir(), "card.json")
	testenv.Refused(t, "LoadCard(FIFO)", loadCard(fifo), fileread.ErrNotRegular, "named pipe")
}
