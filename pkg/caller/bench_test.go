// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
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
	cpu := testenv.ProcessCPU()
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
	b.ReportMetric(float64((testenv.ProcessCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkReplyVsInvoke compares, in one run, answering a task that waits
// for input (Continue: the answer, the agent's turn, the outcome) with a
// new invoke (Call) to the same agent, one at a time, embedded and on the
// real servers. Each op asks (untimed), answers, then invokes; the metrics
// are the median latency of each (reply-p50-µs, invoke-p50-µs) and their
// ratio.
func BenchmarkReplyVsInvoke(b *testing.B) {
	b.Run("embedded", func(b *testing.B) { benchReplyVsInvoke(b, testworld.Embedded(b)) })
	b.Run("real", func(b *testing.B) { benchReplyVsInvoke(b, testworld.Real(b)) })
}

func benchReplyVsInvoke(b *testing.B, tw *testworld.World) {
	name := tw.N("Clerk")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Version: "1.0"}, Bus: tw.Connect(b)})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Handle("ask", func(_ context.Context, t *agent.Task) (*agent.Result, error) {
		if t.Turn() == 0 {
			return agent.Ask("sure?"), nil
		}
		return agent.TextResult("done: " + t.Text()), nil
	}); err != nil {
		b.Fatal(err)
	}
	if err := a.Handle("echo", echo); err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, a)
	c, err := New(Options{Name: tw.N("Primary"), Bus: tw.Connect(b), Memory: tw.Memory})
	if err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, c, ErrClosed)
	ctx := context.Background()
	ask := Request{Target: name, Skill: "ask", Text: "go", SessionID: "bench"}
	invoke := Request{Target: name, Skill: "echo", Text: "hello", SessionID: "bench"}
	op := func() (reply, call time.Duration) {
		out, err := c.Call(ctx, ask, nil)
		if err != nil || !out.WaitingForInput() {
			b.Fatalf("ask: %+v, %v", out, err)
		}
		start := time.Now()
		out, err = c.Continue(ctx, Reply{TaskID: out.TaskID, Text: "yes"}, nil)
		reply = time.Since(start)
		if err != nil || out.Err() != nil {
			b.Fatalf("reply: %+v, %v", out, err)
		}
		start = time.Now()
		out, err = c.Call(ctx, invoke, nil)
		call = time.Since(start)
		if err != nil || out.Err() != nil {
			b.Fatalf("invoke: %+v, %v", out, err)
		}
		return reply, call
	}
	op() // warm up: queues declared, session owned
	replies, calls := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		r, c := op()
		replies, calls = append(replies, r), append(calls, c)
	}
	b.StopTimer()
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	r, i := p50(replies), p50(calls)
	b.ReportMetric(float64(r.Microseconds()), "reply-p50-µs")
	b.ReportMetric(float64(i.Microseconds()), "invoke-p50-µs")
	b.ReportMetric(float64(r)/float64(i), "reply/invoke")
}
