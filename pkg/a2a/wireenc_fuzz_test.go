// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a_test

import (
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/a2a/a2afuzz"
)

// FuzzWireEncode holds the hand-written writer byte-equal to encoding/json
// on payloads built from the input (a2afuzz): every field, strings with
// escapes, invalid UTF-8 and HTML characters, times in odd zones and out
// of range, metadata maps and data values of every JSON type, nested
// parts.
func FuzzWireEncode(f *testing.F) {
	a2afuzz.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := a2afuzz.New(data)
		a2a.AssertSameBytes(t, g.Request())
		a2a.AssertSameBytes(t, g.Result())
	})
}
