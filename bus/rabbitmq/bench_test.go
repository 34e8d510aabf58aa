// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// benchPrefetch is the consumers' prefetch (and a2abus handler concurrency).
const benchPrefetch = 64

var benchBody = []byte(`{"taskId":"t-0001","skill":"summarize","message":{"role":"user","parts":[{"kind":"text","text":"hello, agent"}]}}`)

// BenchmarkConfirmedRoundTrip measures confirmed publish → consume → ack
// throughput through this bus beside a bare amqp091-go loop doing the same
// (persistent, mandatory, confirms, manual ack, prefetch 64, the same task
// queue arguments), publishing one at a time (seq) or with 64 in flight.
func BenchmarkConfirmedRoundTrip(b *testing.B) {
	for _, inflight := range []int{1, 64} {
		name := "seq"
		if inflight > 1 {
			name = "pipelined-64"
		}
		b.Run("a2abus/"+name, func(b *testing.B) { benchBus(b, inflight) })
		b.Run("raw/"+name, func(b *testing.B) { benchRaw(b, inflight) })
	}
}

func benchBus(b *testing.B, inflight int) {
	e := newTestEnv(b)
	bb := e.open(b, Options{})
	spec := e.taskQueue(b, bb)
	var consumed atomic.Int64
	done := make(chan struct{})
	target := int64(b.N)
	consume(b, bb, spec.Name, bus.ConsumeOptions{Concurrency: benchPrefetch}, func(context.Context, *bus.Delivery) error {
		if consumed.Add(1) == target {
			close(done)
		}
		return nil
	})
	msg := bus.Message{Envelope: a2a.Envelope{Kind: "task.request", MessageID: "m", ContentType: "application/json", Body: benchBody}, RoutingKey: spec.Name}
	ctx := context.Background()

	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range inflight {
		wg.Go(func() {
			for next.Add(1) <= target {
				if err := bb.Publish(ctx, msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	waitConsumed(b, done)
	b.StopTimer()
	reportRate(b)
}

func benchRaw(b *testing.B, inflight int) {
	e := newTestEnv(b)
	spec, _ := bus.TaskQueue("Rmq" + unique())
	e.track(spec.Name)
	p, _ := queueArgs(bus.KindTask, QueueTypeClassic, a2a.DeadLetterExchange(e.exchange))

	pconn, pch := rawChannel(b, e.url)
	defer func() { _ = pconn.Close() }()
	if err := pch.ExchangeDeclare(e.exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := pch.QueueDeclare(spec.Name, p.Durable, p.AutoDelete, p.Exclusive, false, p.Args); err != nil {
		b.Fatal(err)
	}
	if err := pch.QueueBind(spec.Name, spec.Name, e.exchange, false, nil); err != nil {
		b.Fatal(err)
	}
	if err := pch.Confirm(false); err != nil {
		b.Fatal(err)
	}
	returns := pch.NotifyReturn(make(chan amqp.Return, 1))
	go func() {
		for r := range returns {
			b.Errorf("returned: %s", r.ReplyText)
		}
	}()

	cconn, cch := rawChannel(b, e.url)
	defer func() { _ = cconn.Close() }()
	if err := cch.Qos(benchPrefetch, 0, false); err != nil {
		b.Fatal(err)
	}
	deliveries, err := cch.Consume(spec.Name, "", false, false, false, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for d := range deliveries {
			if err := d.Ack(false); err != nil {
				b.Error(err)
				return
			}
			if n++; n == b.N {
				close(done)
			}
		}
	}()
	pub := amqp.Publishing{DeliveryMode: amqp.Persistent, Type: "task.request", MessageId: "m",
		ContentType: "application/json", Body: benchBody}

	b.ResetTimer()
	window := make(chan *amqp.DeferredConfirmation, inflight)
	confirmed := make(chan error, 1)
	go func() {
		for dc := range window {
			if !dc.Wait() {
				confirmed <- errors.New("nacked")
				return
			}
		}
		confirmed <- nil
	}()
	for range b.N {
		dc, err := pch.PublishWithDeferredConfirm(e.exchange, spec.Name, true, false, pub)
		if err != nil {
			b.Fatal(err)
		}
		if inflight == 1 {
			if !dc.Wait() {
				b.Fatal("nacked")
			}
			continue
		}
		window <- dc
	}
	close(window)
	if err := <-confirmed; err != nil {
		b.Fatal(err)
	}
	waitConsumed(b, done)
	b.StopTimer()
	reportRate(b)
}

func waitConsumed(b *testing.B, done <-chan struct{}) {
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("not everything consumed within a minute")
	}
}

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
