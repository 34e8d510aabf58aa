// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
)

// pause is how long the fault tests pause every Redis client. CLIENT UNPAUSE
// is itself held by a pause ALL on Redis 7.0, so the pause must end on its own.
const pause = 2 * time.Second

// TestFaultRedisPaused: while Redis is paused a call fails with ErrUnavailable
// after the per-call timeout instead of hanging, and works once the pause ends.
func TestFaultRedisPaused(t *testing.T) {
	testenv.NeedFaults(t)
	opts := testOptions(t)
	opts.Timeout = 300 * time.Millisecond
	m := open(t, opts)
	raw := rawClient(t)
	ctx := t.Context()
	key := "t/" + randomID(t)
	if err := m.Set(ctx, key, []byte("before"), time.Minute); err != nil {
		t.Fatal(err)
	}

	if err := raw.Do(ctx, "client", "pause", pause.Milliseconds(), "all").Err(); err != nil {
		t.Fatalf("pause redis: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), pause+5*time.Second)
		defer cancel()
		if err := raw.Do(ctx, "client", "unpause").Err(); err != nil {
			t.Errorf("unpause redis: %v", err)
		}
	})

	// Had Set waited for the pause to end it would have succeeded: ErrUnavailable
	// proves it gave up after its own timeout.
	err := m.Set(ctx, key, []byte("during"), time.Minute)
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("set while redis is paused = %v, want ErrUnavailable", err)
	}
	_, err = m.Get(ctx, key)
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("get while redis is paused = %v, want ErrUnavailable", err)
	}
	_, err = m.Batch(ctx, memory.SetOp(key, []byte("during"), time.Minute), memory.DeleteOp(key+"/other"))
	if !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("batch while redis is paused = %v, want ErrUnavailable", err)
	}
	// Concurrent batches share pipelines (group commit): every one of them
	// gives up with ErrUnavailable, none hangs behind another.
	batchErrs := concurrentBatches(ctx, m, key, 16)
	for i, err := range batchErrs {
		if !errors.Is(err, memory.ErrUnavailable) {
			t.Fatalf("concurrent batch %d while redis is paused = %v, want ErrUnavailable", i, err)
		}
	}
	if _, err := m.IndexRange(ctx, "t/idx", 0, 0); !errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("index range while redis is paused = %v, want ErrUnavailable", err)
	}

	testenv.Eventually(t, "a set to succeed after the pause", func() bool {
		err = m.Set(ctx, key, []byte("after"), time.Minute)
		if err != nil && !errors.Is(err, memory.ErrUnavailable) {
			t.Fatalf("set after the pause: %v", err)
		}
		return err == nil
	}, testenv.Within(pause+10*time.Second), testenv.Explain(func() string { return fmt.Sprint("last set: ", err) }))
	if got, err := m.Get(ctx, key); err != nil || string(got) != "after" {
		t.Fatalf("get after the pause = %q, %v; want %q", got, err, "after")
	}
	for i, err := range concurrentBatches(ctx, m, key, 16) {
		if err != nil {
			t.Fatalf("concurrent batch %d after the pause: %v", i, err)
		}
		if got, err := m.Get(ctx, fmt.Sprintf("%s/b%d", key, i)); err != nil || string(got) != "v" {
			t.Fatalf("value of concurrent batch %d = %q, %v", i, got, err)
		}
	}
}

// concurrentBatches runs n batches at once (each sets key/b<i>) and returns their errors.
func concurrentBatches(ctx context.Context, m *redismem.Memory, key string, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = m.Batch(ctx, memory.SetOp(fmt.Sprintf("%s/b%d", key, i), []byte("v"), time.Minute))
		})
	}
	wg.Wait()
	return errs
}

// TestFaultSubscriberSurvivesPubsubKill: a subscriber whose pub/sub connection
// is killed, with turns appended meanwhile, still receives every turn in order.
func TestFaultSubscriberSurvivesPubsubKill(t *testing.T) {
	testenv.NeedFaults(t)
	m := open(t, testOptions(t))
	raw := rawClient(t)
	ctx := t.Context()
	session := "s-" + randomID(t)
	ch, err := m.SubscribeTurns(ctx, session, 0)
	if err != nil {
		t.Fatal(err)
	}
	var next int64 = 1
	expect := func(n int) {
		t.Helper()
		for range n {
			select {
			case got, ok := <-ch:
				if !ok {
					t.Fatal("subscription closed")
				}
				if got.Seq != next || got.Content != fmt.Sprint(next) {
					t.Fatalf("received seq %d (%q), want seq %d: a turn was lost or duplicated", got.Seq, got.Content, next)
				}
				next++
			case <-time.After(15 * time.Second):
				t.Fatalf("turn %d never arrived", next)
			}
		}
	}
	// appendTurns appends n turns whose content is their expected seq; every
	// earlier turn has been received, so the next seq is next.
	appendTurns := func(n int) {
		t.Helper()
		for i := range n {
			want := next + int64(i)
			got, err := m.AppendTurn(ctx, session, memory.Turn{Role: memory.RoleUser, Content: fmt.Sprint(want)})
			if err != nil || got.Seq != want {
				t.Fatalf("append turn %d: seq %d, %v", want, got.Seq, err)
			}
		}
	}

	appendTurns(3)
	expect(3)
	for round := range 3 {
		killed, err := raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		if err != nil || killed == 0 {
			t.Fatalf("round %d: CLIENT KILL TYPE pubsub = %d, %v; want the subscriber's connection killed", round, killed, err)
		}
		appendTurns(5)
		expect(5)
	}
}
