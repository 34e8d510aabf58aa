// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"testing"

	"github.com/google/uuid"
)

// NewID's ids are version 4 UUIDs in canonical form, all different, and
// cost one allocation each.
func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("%q: %v, version %d, variant %v", id, err, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
	if n := testing.AllocsPerRun(100, func() { _ = NewID() }); n > 1 && !raceEnabled {
		t.Errorf("NewID allocated %v times, want 1", n)
	}
}
