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

// benchChainNames are the chains BenchmarkChain and BenchmarkLatency run:
// raw, raw+record (raw with a2abus's task record before each publish: one
// Redis round trip) and a2abus.
var benchChainNames = []string{"raw", rawRecordedChainName, "a2abus"}

// BenchmarkChain runs each chain alone at 64 calls in flight, so that a CPU
// profile (-cpuprofile) shows one chain's cost: go test -run '^$' -bench
// Chain/a2abus -cpuprofile cpu.out ./internal/bench. The ratios are
// a2abus bench's to report; this reports calls/s of each, and the Go CPU
// (this process's user and system time) and allocations per call, which
// depend little on what else the machine runs.
func BenchmarkChain(b *testing.B) {
	for _, name := range benchChainNames {
		b.Run(name, func(b *testing.B) {
			ctx, c := benchChain(b, name)
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

// BenchmarkLatency makes b.N calls of each chain one at a time and reports
// their median (p50-µs): go test -run '^$' -bench Latency -benchtime 400x
// ./internal/bench. raw+record's median less raw's is what the task's record
// costs a call; a2abus's less raw+record's is the rest of its layers.
func BenchmarkLatency(b *testing.B) {
	for _, name := range benchChainNames {
		b.Run(name, func(b *testing.B) {
			ctx, c := benchChain(b, name)
			b.ResetTimer()
			samples, err := measureLatency(ctx, c, b.N)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			sorted := sortedCopy(samples)
			b.ReportMetric(float64(percentile(sorted, 50).Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(percentile(sorted, 99).Nanoseconds())/1e3, "p99-µs")
		})
	}
}

// benchChain connects the chain name (one of benchChainNames) of a run of
// its own, warmed up; the run's queues and keys are deleted when b ends.
func benchChain(b *testing.B, name string) (context.Context, chain) {
	b.Helper()
	o, err := realOptions(b).withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.Cleanup(cancel)
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
	b.Cleanup(func() { // after the raw chain's close, registered later
		_ = project.close()
		_ = cleanUp(context.Background(), o, runID, queues)
	})
	var c chain = project
	if name != "a2abus" {
		sizes, err := project.sizes(ctx)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := newRawChain(ctx, rawConfig{amqpURL: o.AMQPURL, redisURL: o.RedisURL,
			exchange: o.Exchange, queueType: o.QueueType, keyPrefix: o.KeyPrefix, runID: runID,
			redisTimeout: o.Timeout, ttl: o.ResultTTL, workers: settings.AgentConcurrency,
			responders: settings.ResponseConcurrency, sizes: sizes, recorded: name == rawRecordedChainName})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(raw.close)
		c = raw
	}
	if err := warmUp(ctx, c, 200); err != nil {
		b.Fatal(err)
	}
	return ctx, c
}

// benchInFlight is the calls in flight of BenchmarkChain, as a2abus bench's default.
const benchInFlight = 64
