// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package conformancetest runs the conformance kit in a test and requires
// every requirement to pass.
package conformancetest

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/a2abus/a2abus/internal/conformance"
)

// RequireAll runs the kit with opts, logs its table, and fails the test for
// every requirement that did not pass (a skip included: every check must run).
func RequireAll(t testing.TB, opts conformance.Options) *conformance.Report {
	t.Helper()
	return RequireAllBut(t, opts)
}

// RequireAllBut is RequireAll for an agent without an optional feature:
// the checks named in skipped must be skipped (not passed, not failed),
// every other one must pass.
func RequireAllBut(t testing.TB, opts conformance.Options, skipped ...string) *conformance.Report {
	t.Helper()
	rep, err := conformance.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", &table)
	for _, r := range rep.Results {
		want := conformance.Pass
		if slices.Contains(skipped, r.ID) {
			want = conformance.Skip
		}
		if r.Outcome != want {
			t.Errorf("%s (%s): %s, want %s: %s", r.ID, r.Level, r.Outcome, want, r.Detail)
		}
	}
	return rep
}
