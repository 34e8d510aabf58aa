// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// BenchmarkCallEmbedded is the invoke chain's own cost, with no network: one
// Call to an echo agent at a time on the embedded bus and memory. Its
// allocs/op and ns/op are what caller, agent and codec add to every call
// (a2abus bench measures the chain on the real servers).
func BenchmarkCallEmbedded(b *testing.B) {
	tw := testworld.Embedded(b)
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: "Echo", Version: "1.0"}, Bus: tw.Connect(b)})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Handle("echo", echo); err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, a)
	c, err := New(Options{Name: "Primary", Bus: tw.Connect(b), Memory: tw.Memory})
	if err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, c, ErrClosed)
	ctx := context.Background()
	req := Request{Target: "Echo", Skill: "echo", Text: "hello", SessionID: "bench"}
	if _, err := c.Call(ctx, req, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	b.SetParallelism(32) // 64 calls in flight on 2 cores, as a2abus bench
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			out, err := c.Call(ctx, req, nil)
			if err != nil || out.Result.Failed() {
				b.Errorf("call: %+v, %v", out, err)
				return
			}
		}
	})
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
