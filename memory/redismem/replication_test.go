// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/soak"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
)

// failoverLoss writes results through Batch to a private primary whose
// replica is reached through a proxy, partitions the replica away (the
// proxy hangs: nothing passes), writes more, then crashes the primary and
// promotes the replica, as a Sentinel would. It returns how many batches
// were acknowledged (Batch returned nil) and how many of those the
// promoted replica does not have.
func failoverLoss(t *testing.T, waitReplicas int) (acked, lost int) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed")
		}
		t.Skip("redis-server is not installed")
	}
	ctx := t.Context()
	primary, err := soak.StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Stop()
	link := testenv.NewProxy(t, primary.Addr())
	replica, err := soak.StartReplica(ctx, t.TempDir(), link.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Stop()
	rc := goredis.NewClient(&goredis.Options{Addr: replica.Addr()})
	defer func() { _ = rc.Close() }()
	testenv.Eventually(t, "the replica to synchronise", func() bool {
		info, err := rc.Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "master_link_status:up")
	}, testenv.Within(30*time.Second))

	m, err := redismem.New(ctx, redismem.Options{URL: primary.URL, KeyPrefix: "repl:", WaitReplicas: waitReplicas,
		WaitTimeout: 2 * time.Second}) // generous: the linked writes must replicate in time on a loaded machine
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Close() }()

	var mu sync.Mutex
	var stored []string
	write := func(phase string, n int) (failed int) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				key := fmt.Sprintf("result:%s:%d", phase, i)
				_, err := m.Batch(ctx, memory.SetOp(key, []byte("answer "+key), 0), memory.IndexAddOp("pending", key, int64(i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					stored = append(stored, key)
				case waitReplicas > 0 && errors.Is(err, redismem.ErrNotReplicated) && errors.Is(err, memory.ErrUnavailable):
					failed++
				default:
					t.Errorf("batch %s: %v", key, err)
				}
			})
		}
		wg.Wait()
		return failed
	}
	if failed := write("linked", 100); failed > 0 {
		t.Fatalf("%d of 100 batches not replicated while the replica was linked", failed)
	}
	// The linked writes reach the replica (replication is asynchronous:
	// without this, those still on their way would be lost too).
	linked := make([]string, len(stored))
	for i, key := range stored {
		linked[i] = "repl:kv:" + key
	}
	testenv.Eventually(t, "the replica to have the linked writes", func() bool {
		n, err := rc.Exists(ctx, linked...).Result()
		return err == nil && n == int64(len(linked))
	}, testenv.Within(30*time.Second))
	link.Hang() // the partition: the replica gets nothing more, acknowledges nothing
	failed := write("partitioned", 100)
	if waitReplicas > 0 && failed != 100 {
		t.Errorf("%d of 100 batches failed as not replicated during the partition, want 100", failed)
	}
	primary.Kill()
	link.Up()
	if err := rc.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatalf("promote the replica: %v", err)
	}
	for _, key := range stored {
		if err := rc.Get(ctx, "repl:kv:"+key).Err(); errors.Is(err, goredis.Nil) {
			lost++
		} else if err != nil {
			t.Fatalf("read %s on the promoted replica: %v", key, err)
		}
	}
	return len(stored), lost
}

// TestFailoverWaitReplicasLosesNoAcknowledgedResult: with WaitReplicas a
// batch acknowledged before the primary crashed is on the promoted
// replica; without it, the batches acknowledged while the replica was
// partitioned away are lost, and the test says how many.
func TestFailoverWaitReplicasLosesNoAcknowledgedResult(t *testing.T) {
	t.Run("wait", func(t *testing.T) {
		t.Parallel()
		acked, lost := failoverLoss(t, 1)
		t.Logf("redis.wait_replicas 1: %d results acknowledged, %d lost at failover", acked, lost)
		if acked != 100 || lost != 0 {
			t.Errorf("with WAIT: %d acknowledged (want the 100 written while linked), %d lost (want 0)", acked, lost)
		}
	})
	t.Run("no wait", func(t *testing.T) {
		t.Parallel()
		acked, lost := failoverLoss(t, 0)
		t.Logf("redis.wait_replicas 0: %d results acknowledged, %d lost at failover", acked, lost)
		if acked != 200 || lost != 100 {
			t.Errorf("without WAIT: %d acknowledged (want 200), %d lost (want the 100 written during the partition)", acked, lost)
		}
	})
}

// TestWaitReplicasWithoutReplicaFails: a Batch on a Redis with no replica
// fails as not replicated (unavailable, so retried), after applying its
// writes; without WaitReplicas it succeeds.
func TestWaitReplicasWithoutReplicaFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	o := testOptions(t)
	o.WaitReplicas, o.WaitTimeout = 5, 50*time.Millisecond
	m, err := redismem.New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Close() }()
	_, err = m.Batch(ctx, memory.SetOp("k", []byte("v"), time.Minute))
	if !errors.Is(err, redismem.ErrNotReplicated) || !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("Batch with 5 replicas wanted on a lone server: %v, want ErrNotReplicated and ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "of 5 replicas acknowledged within 50ms") {
		t.Errorf("error %q does not say how many replicas acknowledged", err)
	}
	if v, err := m.Get(ctx, "k"); err != nil || string(v) != "v" {
		t.Errorf("the write itself: %q, %v (applied on the primary)", v, err)
	}
	if _, err := redismem.New(ctx, redismem.Options{URL: o.URL, WaitReplicas: -1}); !errors.Is(err, memory.ErrInvalidArgument) {
		t.Errorf("WaitReplicas -1: %v, want ErrInvalidArgument", err)
	}
}
