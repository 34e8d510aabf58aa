// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"context"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/soak"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/converse"
)

// privateMemory replaces w's working memory with a private redis-server
// (so that pausing it disturbs no other test) and returns a client of it.
func privateMemory(t *testing.T, w *testworld.World) *goredis.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := soak.StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	mem, err := redismem.New(ctx, redismem.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Memory.Close()
	w.Memory = mem // closed by the world's cleanup (after the rig's parts stop)
	opts, err := goredis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(opts)
	t.Cleanup(func() { _ = admin.Close() })
	return admin
}

// A 3-second pause of working memory while the driver waits for the
// remote's reply (it reads the control log, renews its lease and waits for
// the outcome all along) is ridden out: the conversation completes, the
// turn sent once. Before the fix the driver stopped with "read the control
// log … unavailable" and the conversation stayed waiting_remote.
func TestDriverRidesOutAMemoryPause(t *testing.T) {
	t.Parallel()        // it mostly waits: overlapping saves the suite's time
	testenv.RedisURL(t) // skip locally (fail under CI) without Redis
	w := testworld.Real(t)
	admin := privateMemory(t, w)
	a := &answerer{gate: make(chan struct{})}
	r := newRig(t, w, rigOptions{answer: a, leaseTTL: 15 * time.Second})
	spec := r.spec(converse.FullAuto)
	spec.Limits.MaxTurns = 1
	c := r.start(spec)
	done := r.drive(ctx(t), c.ID)
	testenv.Eventually(t, "the turn sent", func() bool { return len(a.received()) == 1 })
	time.Sleep(300 * time.Millisecond) // the driver is in its wait, polling the control log
	if err := admin.Do(ctx(t), "CLIENT", "PAUSE", "3000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	close(a.gate) // the reply comes during the pause
	c = r.finish(done)
	if c.State != converse.Completed || c.Exchanges != 1 || len(a.received()) != 1 {
		t.Fatalf("state %s after %d exchanges (%d sends), want completed after 1: %s", c.State, c.Exchanges, len(a.received()), c.Reason)
	}
}

// Working memory down for a while from the moment the local agent is asked
// for its first draft (the driver saves, polls the control log, waits and
// invokes through it): every part rides the outage out and the
// conversation completes, each turn sent once.
func TestDriverRidesOutAMemoryOutage(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		flaky := &testworld.DownMemory{Memory: w.Memory}
		w.Memory = flaky
		t.Cleanup(func() { w.Memory = flaky.Memory }) // the world closes the real one
		var once sync.Once
		d := &drafter{onDraft: func() {
			once.Do(func() {
				flaky.Down.Store(true)
				time.AfterFunc(1500*time.Millisecond, func() { flaky.Down.Store(false) })
			})
		}}
		r := newRig(t, w, rigOptions{draft: d, leaseTTL: 15 * time.Second})
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxTurns = 2
		c := r.finish(r.drive(ctx(t), r.start(spec).ID))
		if c.State != converse.Completed || c.Exchanges != 2 || len(r.answer.received()) != 2 || flaky.Fails.Load() == 0 {
			t.Fatalf("state %s after %d exchanges (%d sends, %d failed memory calls), want completed after 2: %s",
				c.State, c.Exchanges, len(r.answer.received()), flaky.Fails.Load(), c.Reason)
		}
	})
}
