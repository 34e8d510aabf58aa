// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestSummaryJSONIsCamelCase: the summary line's field names are camelCase
// (its maps are keyed by values: fault kinds, dead-letter reasons, states).
func TestSummaryJSONIsCamelCase(t *testing.T) {
	if bad := testenv.NotCamelCaseJSON(&Summary{Problems: []string{"p"}}); len(bad) > 0 {
		t.Fatalf("%q", bad)
	}
}
