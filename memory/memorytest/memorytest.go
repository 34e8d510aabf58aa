// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package memorytest is the conformance suite every memory.Memory backend
// passes: call Run from the backend's tests.
package memorytest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// wait bounds every wait for an expiry or a delivery; the suite makes no
// assertion on speed, only on what eventually happens.
const wait = 10 * time.Second

// shortTTL is the TTL of keys the suite watches expire.
const shortTTL = 300 * time.Millisecond

// Run runs the conformance suite. newMemory must return a new, empty memory
// that is closed (and cleaned up) when t ends; sub-tests run in parallel, each
// with its own memory, keys and sessions.
func Run(t *testing.T, newMemory func(t *testing.T) memory.Memory) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, m memory.Memory)
	}{
		{"SetGetDelete", testSetGetDelete},
		{"Overwrite", testOverwrite},
		{"ValuesAreCopied", testValuesAreCopied},
		{"TTLExpiry", testTTLExpiry},
		{"TTLValue", testTTLValue},
		{"NegativeTTL", testNegativeTTL},
		{"List", testList},
		{"GetMany", testGetMany},
		{"SetIfAbsent", testSetIfAbsent},
		{"SetIfAbsentAfterExpiry", testSetIfAbsentAfterExpiry},
		{"SetIfAbsentConcurrent", testSetIfAbsentConcurrent},
		{"CompareAndSet", testCompareAndSet},
		{"CompareAndDelete", testCompareAndDelete},
		{"CompareAfterExpiry", testCompareAfterExpiry},
		{"CompareAndSetConcurrent", testCompareAndSetConcurrent},
		{"CompareClosed", testCompareClosed},
		{"InvalidKeys", testInvalidKeys},
		{"InvalidPrefixes", testInvalidPrefixes},
		{"ValidKeys", testValidKeys},
		{"ResultKeys", testResultKeys},
		{"AppendAndTurns", testAppendAndTurns},
		{"InvalidTurns", testInvalidTurns},
		{"InvalidSessions", testInvalidSessions},
		{"ConcurrentAppends", testConcurrentAppends},
		{"AppendTurnOnce", testAppendTurnOnce},
		{"AppendTurnOnceConcurrent", testAppendTurnOnceConcurrent},
		{"AppendTurnOnceInvalid", testAppendTurnOnceInvalid},
		{"SubscribeCatchUpAndLive", testSubscribeCatchUpAndLive},
		{"SubscribeAfterSeq", testSubscribeAfterSeq},
		{"SubscribeConcurrentWriters", testSubscribeConcurrentWriters},
		{"SubscribeClosesOnCancel", testSubscribeClosesOnCancel},
		{"BatchResults", testBatchResults},
		{"BatchOrder", testBatchOrder},
		{"BatchInvalid", testBatchInvalid},
		{"BatchStreamAdd", testBatchStreamAdd},
		{"IndexAddMoveRemove", testIndexAddMoveRemove},
		{"IndexRange", testIndexRange},
		{"IndexConcurrent", testIndexConcurrent},
		{"IndexBatch", testIndexBatch},
		{"IndexInvalid", testIndexInvalid},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newMemory(t))
		})
	}
}

// unique returns a random lower-case hex id, legal in keys and session ids.
func unique(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("random id: %v", err)
	}
	return hex.EncodeToString(b)
}

// mustBe fails t unless err wraps want.
func mustBe(t *testing.T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want one wrapping %v", what, err, want)
	}
}

// must fails t when err is not nil.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
