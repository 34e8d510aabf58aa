// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/soak"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// A real Redis applies a one-shot caller's record batch in part: the task's
// record and pending entry land, its session writes are refused (NOPERM: the
// server's user may not write session keys, as a Redis Cluster primary that
// fails over refuses its share of a batch). Invoke says "not sent", and the
// caller exits at once. Nothing follows: a replica of the caller sweeps past
// the task's deadline without a TIMEOUT for it, its agent never runs it, and
// the task's only claim is the caller's "unsent". The server is a private
// redis-server, so its ACL change touches nobody else.
func TestRealRedisPartialRecordIsNeverRunNorTimedOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, admin := privateRedis(ctx, t)
	w := testworld.Real(t)

	var mu sync.Mutex
	var ran []string
	target := w.N("Echo")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		mu.Lock()
		ran = append(ran, task.Text())
		mu.Unlock()
		return agent.TextResult("echo " + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)

	name := w.N("Primary")
	mem1, err := redismem.New(ctx, redismem.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer mem1.Close()
	oneShot, err := caller.New(caller.Options{Name: name, Bus: w.Connect(t), Memory: mem1})
	if err != nil {
		t.Fatal(err)
	}
	// Every key but the sessions' (a2abus:kv:session/…) may be written.
	if err := admin.Do(ctx, "ACL", "SETUSER", "default", "resetkeys", "~a2abus:kv:a2a*", "~a2abus:idx:*", "~a2abus:conv:*").Err(); err != nil {
		t.Fatal(err)
	}
	inv, err := oneShot.Invoke(ctx, caller.Request{Target: target, Skill: "echo", Text: "refused", Timeout: 2 * time.Second})
	if !errors.Is(err, memory.ErrRefused) || errors.Is(err, caller.ErrOutcomeUnknown) || inv.TaskID != "" {
		t.Fatalf("Invoke: %+v, %v; want its record refused in part, and not sent", inv, err)
	}
	// The one-shot caller exits at once (a CLI call, a killed process).
	_ = oneShot.Close()
	_ = mem1.Close()
	if err := admin.Do(ctx, "ACL", "SETUSER", "default", "allkeys").Err(); err != nil {
		t.Fatal(err)
	}

	mem2, err := redismem.New(ctx, redismem.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer mem2.Close()
	replica, err := caller.New(caller.Options{Name: name, Bus: w.Connect(t), Memory: mem2, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, replica)
	// Had the task been published, its agent would have run it before this
	// later one (one queue, first in first out).
	out, err := replica.Call(ctx, caller.Request{Target: target, Skill: "echo", Text: "after"}, nil)
	if err != nil || out.Err() != nil || out.Result.Text() != "echo after" {
		t.Fatalf("Call after: %+v, %v", out, err)
	}
	// A task invoked later, with the same timeout, has a later deadline: its
	// TIMEOUT means the sweeper went past the refused task's deadline.
	control, err := replica.Call(ctx, caller.Request{Target: w.N("Nobody"), Skill: "echo", Text: "control", Timeout: 2 * time.Second}, nil)
	if err != nil || control.Result.Error == nil || control.Result.Error.Code != a2a.CodeTimeout {
		t.Fatalf("Call control: %+v, %v; want its TIMEOUT", control, err)
	}
	mu.Lock()
	if !slices.Equal(ran, []string{"after"}) {
		t.Errorf("the agent ran %q, want only the later task", ran)
	}
	mu.Unlock()
	pending, err := caller.PendingTasks(ctx, mem2, name, 10)
	if err != nil || len(pending) != 0 {
		t.Errorf("pending %v, %v; want none", pending, err)
	}
	prefix, err := memory.TaskClaimKey(name, "x")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := mem2.List(ctx, strings.TrimSuffix(prefix, "x"))
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]int{}
	for _, k := range keys {
		v, err := mem2.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		by, _, _ := strings.Cut(string(v), "/")
		claims[by]++
	}
	if want := map[string]int{"unsent": 1, "result": 1, "timeout": 1}; !maps.Equal(claims, want) {
		t.Errorf("claims %v, want %v: the refused task withdrawn, the later one answered, the control timed out", claims, want)
	}
}

// privateRedis starts a private redis-server, for a test that changes its
// ACL (skipped locally, failing under CI, without Redis), and a client of it.
func privateRedis(ctx context.Context, t *testing.T) (*soak.Redis, *goredis.Client) {
	testenv.RedisURL(t)
	srv, err := soak.StartRedis(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	admin := srv.Admin()
	t.Cleanup(func() { _ = admin.Close() })
	return srv, admin
}
