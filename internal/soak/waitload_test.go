// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestLoadWaitsForEachPlannedKind: with the budget spent and every caller
// idle, the load does not end while a kind of the plan has had no fault
// begun (its faults would be dropped, and the run would not test it),
// unless its cap has passed; it ends as soon as there is none left.
func TestLoadWaitsForEachPlannedKind(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rd, err := StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Stop()
	l, err := NewLedger(rd.URL, "waitload")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	caller := &child{role: "caller", name: "C", proc: "caller0.1"}
	// The budget spent, the caller idle: the load is done but for the faults.
	if err := l.Client().Set(ctx, l.key(keyIssued), 10, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Client().Set(ctx, l.key(keyIdle+caller.current()), "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r := &runner{o: Options{Tasks: 10, Duration: time.Minute}, ledger: l, callers: []*child{caller}, log: zap.NewNop()}

	var fired atomic.Bool
	untried := func() []FaultKind {
		if fired.Load() {
			return nil
		}
		return []FaultKind{FaultKillAgent}
	}
	const firesAfter = 1500 * time.Millisecond
	time.AfterFunc(firesAfter, func() { fired.Store(true) })
	start := time.Now()
	if err := r.waitLoad(ctx, start, untried); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < firesAfter {
		t.Errorf("the load ended after %s with kill_agent not begun (begun after %s)", took, firesAfter)
	} else if took > firesAfter+2*time.Second {
		t.Errorf("the load ended %s after its last kind was begun", took-firesAfter)
	}

	// Past the cap the load ends, kinds left or not: the verdict then fails.
	r.o.Duration = time.Second
	start = time.Now()
	if err := r.waitLoad(ctx, start.Add(-2*time.Second), func() []FaultKind { return []FaultKind{FaultKillAgent} }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("past its cap, the load waited %s for a kind", took)
	}
}
