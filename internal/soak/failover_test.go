// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCrashAndPromoteRestartsTheOldPrimaryWhenNoneTakesOver: a primary
// crashed with no replica promoted within the bound is started again (the
// working memory recovers) and the fault is reported not injected.
func TestCrashAndPromoteRestartsTheOldPrimaryWhenNoneTakesOver(t *testing.T) {
	var crashed, synced int
	var restarts []bool
	err := crashAndPromote(context.Background(), crashSteps{
		crash:    func(context.Context) { crashed++ },
		promoted: func(context.Context) error { return errors.New("replica not promoted yet") },
		restart: func(_ context.Context, promoted bool) error {
			restarts = append(restarts, promoted)
			return nil
		},
		synced: func(context.Context) error { synced++; return nil },
		bound:  50 * time.Millisecond,
	})
	if !errors.Is(err, ErrNotPromoted) {
		t.Fatalf("err = %v, want ErrNotPromoted", err)
	}
	if crashed != 1 || len(restarts) != 1 || restarts[0] || synced != 0 {
		t.Fatalf("crashed %d, restarts %v, synced %d: want 1 crash, one restart as it was, no sync wait", crashed, restarts, synced)
	}
}

// TestCrashAndPromoteRestartsTheOldPrimaryAsAReplica: once a replica took
// over, the old primary comes back as its replica, and the fault waits for
// its sync.
func TestCrashAndPromoteRestartsTheOldPrimaryAsAReplica(t *testing.T) {
	var restarts []bool
	synced, polls := 0, 0
	err := crashAndPromote(context.Background(), crashSteps{
		crash: func(context.Context) {},
		promoted: func(context.Context) error {
			if polls++; polls < 3 {
				return errors.New("not yet")
			}
			return nil
		},
		restart: func(_ context.Context, promoted bool) error {
			restarts = append(restarts, promoted)
			return nil
		},
		synced: func(context.Context) error { synced++; return nil },
		bound:  time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(restarts) != 1 || !restarts[0] || synced != 1 {
		t.Fatalf("restarts %v, synced %d: want one restart as a replica, then the sync wait", restarts, synced)
	}
}

// TestNotPromotedFailsTheRun: the failover that found no replica to
// promote is a planned fault not injected, which fails the run.
func TestNotPromotedFailsTheRun(t *testing.T) {
	in := &injector{done: countKinds(ClusterFaultKinds, nil), log: nopLog(),
		failover: func(context.Context) error { return ErrNotPromoted }}
	in.run(context.Background(), time.Now(), []Fault{{Kind: FaultRedisFailover}})
	s := &Summary{Tasks: 10, Faults: in.done, FaultsPlanned: 1, FaultFailures: len(in.failures)}
	if !s.Failed() || in.done[FaultRedisFailover] != 0 {
		t.Fatalf("a failover without promotion: done %v, failures %v, fail reasons %v", in.done, in.failures, s.FailReasons())
	}
}
