// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// BenchmarkPublishConsume measures one message's trip from Publish to an
// acked handler call through a task queue, with 1 and 8 handlers.
func BenchmarkPublishConsume(b *testing.B) {
	for _, concurrency := range []int{1, 8} {
		b.Run("concurrency="+strconv.Itoa(concurrency), func(b *testing.B) {
			broker := NewBroker(Options{})
			defer broker.Close()
			c := broker.Connect()
			spec, err := bus.TaskQueue("Bench")
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := c.Declare(ctx, spec); err != nil {
				b.Fatal(err)
			}
			var handled atomic.Int64
			all := make(chan struct{})
			target := int64(b.N)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				_ = c.Consume(cctx, spec.Name, bus.ConsumeOptions{Concurrency: concurrency}, func(context.Context, *bus.Delivery) error {
					if handled.Add(1) == target {
						close(all)
					}
					return nil
				})
			}()
			msg := bus.Message{
				Envelope: a2a.Envelope{Kind: "task.request", MessageID: "m", ContentType: "application/json",
					Body: make([]byte, 512), Headers: map[string]string{"a2a-version": "1.0"}},
				RoutingKey: spec.Bindings[0],
			}
			b.SetBytes(int64(len(msg.Body)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c.Publish(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
			<-all
		})
	}
}
