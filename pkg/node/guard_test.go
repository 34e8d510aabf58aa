// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// TestNodesOnOneRedisShareTheLimits: by default (limits.shared) three nodes
// of a caller on one Redis admit max_in_flight calls together; with
// limits.shared off each admits its own; on the embedded memory there is
// nothing to share.
func TestNodesOnOneRedisShareTheLimits(t *testing.T) {
	url := testenv.RedisURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	keyPrefix := "a2abus-test-node-limits-" + hex.EncodeToString(b) + ":"
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opt)
	t.Cleanup(func() {
		_ = testworld.DeleteKeys(context.Background(), rdb, keyPrefix)
		_ = rdb.Close()
	})
	admitted := func(shared bool) int {
		total := 0
		for range 3 {
			cfg := config.Default()
			cfg.Redis.URL, cfg.Redis.KeyPrefix = url, keyPrefix
			cfg.Limits.MaxInFlight, cfg.Limits.Shared = 2, shared
			m, err := Memory(t.Context(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			n, err := With(cfg, inproc.New(inproc.Options{}), m, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = n.Close() })
			if s := n.Guard.Stats(); s.Shared != shared || (shared && !s.SharedUp) {
				t.Fatalf("limits.shared %v: the guard's stats say shared %v, up %v", shared, s.Shared, s.SharedUp)
			}
			for range 2 {
				if _, err := n.Guard.Admit("Cli", "ResearchAgent"); err == nil {
					total++
				}
			}
		}
		return total
	}
	if got := admitted(true); got != 2 {
		t.Errorf("three nodes sharing max_in_flight 2 admitted %d calls, want 2", got)
	}
	if got := admitted(false); got != 6 {
		t.Errorf("three nodes with limits.shared off admitted %d calls, want 6 (2 each)", got)
	}
	cfg := config.Default()
	n, err := With(cfg, inproc.New(inproc.Options{}), testworld.Embedded(t).Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	if n.Guard.Stats().Shared {
		t.Error("a node on the embedded memory has shared limits")
	}
}

// TestSharedLimitsGaugeFollowsRedis: a2abus_guard_shared_limits_up is 1
// while the shared limits answer, 0 once Redis is gone (calls still admitted
// by the process's own limits), and 1 again once it is back.
func TestSharedLimitsGaugeFollowsRedis(t *testing.T) {
	proxy, url := testenv.ProxyURL(t, testenv.RedisURL(t))
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	cfg := config.Default()
	cfg.Redis.URL, cfg.Redis.KeyPrefix = url, "a2abus-test-node-gauge-"+hex.EncodeToString(b)+":"
	cfg.Ops.Listen = "127.0.0.1:0" // metrics on; nothing listens until StartOps
	m, err := Memory(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := With(cfg, inproc.New(inproc.Options{}), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	gauge := func() float64 {
		fams, err := promtest.Gather(n.Ops.Registry())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() == "a2abus_guard_shared_limits_up" && len(f.GetMetric()) == 1 {
				return f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("no a2abus_guard_shared_limits_up")
		return -1
	}
	tk, err := n.Guard.Admit("Cli", "ResearchAgent")
	if err != nil {
		t.Fatal(err)
	}
	tk.Done("")
	if g := gauge(); g != 1 {
		t.Fatalf("gauge with Redis up: %v, want 1", g)
	}
	proxy.Down()
	if _, err := n.Guard.Admit("Cli", "ResearchAgent"); err != nil {
		t.Fatalf("a call with Redis down: %v, want admitted (by the slot reserved ahead or the process's own limits)", err)
	}
	// The call may have needed no round trip: the shared limits' background
	// work finds Redis down.
	testenv.Eventually(t, "the gauge is 0 once Redis is down", func() bool { return gauge() == 0 })
	proxy.Up()
	testenv.Eventually(t, "the gauge is 1 again once Redis is back", func() bool { return gauge() == 1 })
}
