// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestLevel(t *testing.T) {
	for p, want := range map[float64]a2a.Confidence{
		1: a2a.ConfidenceHigh, 0.85: a2a.ConfidenceHigh, 0.7: a2a.ConfidenceMedium, 0.6: a2a.ConfidenceMedium,
		0.45: a2a.ConfidenceLow, 0.3: a2a.ConfidenceLow, 0.1: a2a.ConfidenceSpeculative, 0: a2a.ConfidenceSpeculative,
	} {
		if got := Level(p); got != want {
			t.Errorf("Level(%v) = %s, want %s", p, got, want)
		}
	}
}
