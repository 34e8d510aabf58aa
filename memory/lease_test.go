// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
)

// One owner at a time: a second owner is refused while the first holds the
// lease, the holder acquires and renews again, a release by another owner
// changes nothing, and after the holder's release (or its TTL) another
// owner takes it; a renewal finds it lost once another holds it.
func TestLeaseOneOwnerAtATime(t *testing.T) {
	ctx := context.Background()
	m := inmem.New(inmem.Options{})
	defer m.Close()
	a := memory.Lease{Store: m, Key: "lease/x", Owner: "a", TTL: time.Minute}
	b := a
	b.Owner = "b"
	for _, step := range []struct {
		what string
		do   func() (bool, error)
		want bool
	}{
		{"a takes it", func() (bool, error) { return a.Acquire(ctx) }, true},
		{"b is refused", func() (bool, error) { return b.Acquire(ctx) }, false},
		{"a takes it again (its own)", func() (bool, error) { return a.Acquire(ctx) }, true},
		{"a renews", func() (bool, error) { return a.Renew(ctx) }, true},
		{"b cannot renew a's", func() (bool, error) { return b.Renew(ctx) }, false},
		{"b's release leaves it to a", func() (bool, error) { err := b.Release(ctx); ok, _ := a.Renew(ctx); return ok, err }, true},
		{"after a's release b takes it", func() (bool, error) {
			if err := a.Release(ctx); err != nil {
				return false, err
			}
			return b.Acquire(ctx)
		}, true},
		{"a's renewal finds it lost", func() (bool, error) { return a.Renew(ctx) }, false},
	} {
		got, err := step.do()
		if err != nil || got != step.want {
			t.Fatalf("%s: %v, %v; want %v", step.what, got, err, step.want)
		}
	}
	if holder, held, err := a.Holder(ctx); err != nil || !held || holder != "b" {
		t.Fatalf("holder = %q, %v, %v; want b", holder, held, err)
	}
	// Expired and untaken: the holder's renewal takes it again.
	short := memory.Lease{Store: m, Key: "lease/y", Owner: "c", TTL: 20 * time.Millisecond}
	if ok, err := short.Acquire(ctx); !ok || err != nil {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	testenv.Eventually(t, "the lease expires", func() bool { _, held, err := short.Holder(ctx); return err == nil && !held })
	if ok, err := short.Renew(ctx); !ok || err != nil {
		t.Fatalf("renew after expiry, untaken: %v, %v; want taken again", ok, err)
	}
}
