// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits_test

import (
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/guard"
)

// BenchmarkAdmit is the cost the guard adds to one call: Admit then Done,
// with the default limits (10 in flight, a breaker) per process only, then
// shared through Redis (the slot from this process's reserved block and
// the circuit from its copy: no round trip once the first call read them),
// then with a rate limit as well (a round trip per call, redis_rate's GCRA).
func BenchmarkAdmit(b *testing.B) {
	url := testenv.RedisURL(b)
	p := prefix(b, client(b, url))
	defaults := guard.DefaultLimits()
	withRate := defaults
	withRate.Rate, withRate.Burst = 1e6, 1e6
	run := func(b *testing.B, g *guard.Guard) {
		b.ReportAllocs()
		for b.Loop() {
			tk, err := g.Admit("Cli", "ResearchAgent")
			if err != nil {
				b.Fatal(err)
			}
			tk.Done("")
		}
	}
	b.Run("redis-ping", func(b *testing.B) { // the round trip, for scale
		c := client(b, url)
		for b.Loop() {
			if err := c.Ping(b.Context()).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("per-process", func(b *testing.B) {
		g, err := guard.New(guard.Config{Limits: defaults})
		if err != nil {
			b.Fatal(err)
		}
		run(b, g)
	})
	b.Run("shared", func(b *testing.B) { run(b, newReplica(b, url, p, defaults, 0, nil).guard) })
	b.Run("shared+rate", func(b *testing.B) { run(b, newReplica(b, url, p, withRate, 0, nil).guard) })
}
