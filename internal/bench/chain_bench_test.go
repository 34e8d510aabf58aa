// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"crypto/rand"

	"github.com/a2abus/a2abus/internal/testenv"
)

// BenchmarkChain runs each chain alone at 64 calls in flight, so that a CPU
// profile (-cpuprofile) shows one chain's cost: go test -run '^$' -bench
// Chain/a2abus -cpuprofile cpu.out ./internal/bench. The ratios are
// a2abus bench's to report; this reports calls/s of each, and the Go CPU
// (this process's user and system time) and allocations per call, which
// depend little on what else the machine runs.
func BenchmarkChain(b *testing.B) {
	for _, name := range []string{"raw", "a2abus"} {
		b.Run(name, func(b *testing.B) {
			o, err := realOptions(b).withDefaults()
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			runID := strings.ToLower(rand.Text()[:10])
			o.InFlight = benchInFlight
			settings := settingsOf(o)
			project, err := newProjectChain(ctx, projectConfig{amqpURL: o.AMQPURL, redisURL: o.RedisURL,
				exchange: o.Exchange, queueType: o.QueueType, keyPrefix: o.KeyPrefix, runID: runID,
				redisTimeout: o.Timeout, ttl: o.ResultTTL, settings: settings, text: benchText, log: o.Logger})
			if err != nil {
				b.Fatal(err)
			}
			queues := append(project.queues(), rawQueues(runID)...)
			defer func() {
				_ = project.close()
				_ = cleanUp(ctx, o, runID, queues)
			}()
			var c chain = project
			if name == "raw" {
				sizes, err := project.sizes(ctx)
				if err != nil {
					b.Fatal(err)
				}
				raw, err := newRawChain(ctx, rawConfig{amqpURL: o.AMQPURL, redisURL: o.RedisURL,
					exchange: o.Exchange, queueType: o.QueueType, keyPrefix: o.KeyPrefix, runID: runID,
					redisTimeout: o.Timeout, ttl: o.ResultTTL, workers: settings.AgentConcurrency,
					responders: settings.ResponseConcurrency, sizes: sizes})
				if err != nil {
					b.Fatal(err)
				}
				defer raw.close()
				c = raw
			}
			if err := warmUp(ctx, c, 200); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := testenv.ProcessCPU()
			b.ResetTimer()
			t, err := measureThroughput(ctx, c, benchInFlight, b.N, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(t.PerSecond(), "calls/s")
			b.ReportMetric(float64((testenv.ProcessCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// benchInFlight is the calls in flight of BenchmarkChain, as a2abus bench's default.
const benchInFlight = 64
