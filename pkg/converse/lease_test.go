// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/converse"
)

// slowLeaseWrites delays every write of a drive lease (a renewal), so that a
// renewal is nearly always in flight while a drive runs.
type slowLeaseWrites struct {
	memory.Memory
	delay time.Duration
}

func (s slowLeaseWrites) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if strings.HasSuffix(key, "/lease") {
		time.Sleep(s.delay)
	}
	return s.Memory.CompareAndSet(ctx, key, old, value, ttl)
}

// A drive that ends gives its lease up for good: a renewal in flight at its
// end cannot take the lease again after the release, so the conversation is
// not reported driven, and its resume or reopen refused with ErrDriven, for
// a lease TTL after the drive returned.
func TestDriveEndReleasesTheLeaseAfterItsLastRenewal(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		// Renewals every 30ms take 60ms each: one is in flight for all but
		// a moment of a drive, and a drive lasts past the first (its draft
		// takes 100ms).
		slow := &drafter{onDraft: func() { time.Sleep(100 * time.Millisecond) }}
		r := newRig(t, w, rigOptions{draft: slow, leaseTTL: 90 * time.Millisecond, memory: func(m memory.Memory) memory.Memory {
			return slowLeaseWrites{Memory: m, delay: 60 * time.Millisecond}
		}})
		for i := range 3 {
			spec := r.spec(converse.FullAuto)
			spec.Limits.MaxTurns = 1
			c := r.finish(r.drive(ctx(t), r.start(spec).ID))
			if c.State != converse.Completed {
				t.Fatalf("drive %d: state %s: %s", i, c.State, c.Reason)
			}
			driven, err := converse.Driven(ctx(t), w.Memory, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if driven {
				t.Fatalf("drive %d returned, but conversation %s is still driven: a renewal took its lease again after the release", i, c.ID)
			}
		}
	})
}
