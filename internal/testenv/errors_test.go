// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestLeaves(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	wrapped := fmt.Errorf("ctx: %w", c)
	got := Leaves(errors.Join(a, errors.Join(b, wrapped)))
	if !slices.Equal(got, []error{a, b, wrapped}) {
		t.Fatalf("Leaves = %v, want a, b and the wrapped c in order", got)
	}
	if got := Leaves(a); len(got) != 1 || got[0] != a {
		t.Fatalf("Leaves of a plain error = %v", got)
	}
}
