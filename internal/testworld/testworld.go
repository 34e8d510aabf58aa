// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package testworld gives tests a bus and a working memory to run agents and
// callers on: the embedded ones (inproc, inmem) or the real servers
// (RabbitMQ, Redis) under a private exchange and key prefix, so the same test
// proves both and parallel packages never collide. Everything a real world
// creates is removed when the test ends.
package testworld

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/memory/redismem"
)

// World is a shared bus backend and one working memory.
type World struct {
	// Kind is "embedded" or "real".
	Kind string
	// Exchange is the bus exchange of this world.
	Exchange string
	// Memory is the world's working memory (closed at cleanup); nil in a RealBus world.
	Memory memory.Memory
	// AMQPURL is set for the real world; RedisURL and KeyPrefix too, unless it is a RealBus world.
	AMQPURL, RedisURL, KeyPrefix string

	t      testing.TB
	suffix string
	broker *inproc.Broker
	mu     sync.Mutex
	names  map[string]bool
}

// Each runs f as the subtests "embedded" and "real".
func Each(t *testing.T, f func(t *testing.T, w *World)) {
	t.Run("embedded", func(t *testing.T) { f(t, Embedded(t)) })
	t.Run("real", func(t *testing.T) { f(t, Real(t)) })
}

// EachBus is Each for a test that uses only the bus: its real world is
// RealBus's, with no working memory.
func EachBus(t *testing.T, f func(t *testing.T, w *World)) {
	t.Run("embedded", func(t *testing.T) { f(t, Embedded(t)) })
	t.Run("real", func(t *testing.T) { f(t, RealBus(t)) })
}

// Embedded returns a world on a new in-process broker and memory.
func Embedded(t testing.TB) *World {
	w := &World{Kind: "embedded", t: t, broker: inproc.NewBroker(inproc.Options{}), Memory: inmem.New(inmem.Options{}), names: map[string]bool{}}
	w.Exchange = w.broker.Exchange()
	t.Cleanup(func() { _ = w.broker.Close(); _ = w.Memory.Close() })
	return w
}

// Real returns a world on the real RabbitMQ and Redis, under a private
// exchange and key prefix; it skips (or fails under CI=true) when they are down.
func Real(t testing.TB) *World {
	redisURL := testenv.RedisURL(t)
	w := RealBus(t)
	w.RedisURL, w.KeyPrefix = redisURL, "a2abustest:"+w.suffix+":"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := redismem.New(ctx, redismem.Options{URL: redisURL, KeyPrefix: w.KeyPrefix})
	if err != nil {
		t.Fatalf("testworld: %v", err)
	}
	w.Memory = m
	return w
}

// RealBus returns a world on the real RabbitMQ alone, under a private
// exchange: Memory is nil and RedisURL empty, so its clean-up need not walk
// the Redis keyspace (seconds on a shared Redis). It skips (or fails under
// CI=true) when RabbitMQ is down.
func RealBus(t testing.TB) *World {
	amqpURL := testenv.AMQPURL(t)
	id := strings.ToLower(rand.Text()[:10])
	w := &World{Kind: "real", t: t, suffix: id, Exchange: "test." + id, AMQPURL: amqpURL, names: map[string]bool{}}
	t.Cleanup(w.cleanupReal)
	return w
}

// N returns a unique spelling of an agent name in this world (the name
// itself on the embedded bus), and remembers it for cleanup.
func (w *World) N(name string) string {
	n := name
	if w.Kind == "real" {
		n = name + w.suffix
	}
	w.mu.Lock()
	w.names[n] = true
	w.mu.Unlock()
	return n
}

// Connect opens a new bus connection, closed at cleanup.
func (w *World) Connect(t testing.TB) bus.Bus {
	t.Helper()
	if w.broker != nil {
		b := w.broker.Connect()
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: w.AMQPURL, Exchange: w.Exchange, ReconnectMax: time.Second})
	if err != nil {
		t.Fatalf("testworld: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func (w *World) cleanupReal() {
	if w.Memory != nil {
		_ = w.Memory.Close()
	}
	if conn, err := amqp.Dial(w.AMQPURL); err == nil {
		if ch, err := conn.Channel(); err == nil {
			w.mu.Lock()
			for n := range w.names {
				for _, q := range []string{"agent.task." + n, "agent.response." + n} {
					_, _ = ch.QueueDelete(q, false, false, false)
				}
			}
			w.mu.Unlock()
			_, _ = ch.QueueDelete(w.Exchange+".dead", false, false, false)
			_ = ch.ExchangeDelete(w.Exchange, false, false)
			_ = ch.ExchangeDelete(w.Exchange+".dlx", false, false)
		}
		_ = conn.Close()
	}
	if w.RedisURL == "" { // RealBus: nothing in Redis
		return
	}
	opts, err := goredis.ParseURL(w.RedisURL)
	if err != nil {
		return
	}
	rdb := goredis.NewClient(opts)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = DeleteKeys(ctx, rdb, w.KeyPrefix)
}

// DeleteKeys deletes every key of rdb starting with prefix (which holds no
// glob character): one UNLINK per SCAN step of 10,000 keys. SCAN walks the
// whole keyspace whatever it matches, so on a shared Redis holding many
// keys the round trips of small steps cost far more than the walk: 826k
// keys took 20s in steps of 1,000 (past the 10s bound of the clean-ups,
// which then left their keys behind) and 7s in steps of 10,000, on a
// loaded 2-core machine.
func DeleteKeys(ctx context.Context, rdb *goredis.Client, prefix string) error {
	for cursor := uint64(0); ; {
		keys, next, err := rdb.Scan(ctx, cursor, prefix+"*", 10_000).Result()
		if err != nil {
			return fmt.Errorf("testworld: scan %q: %w", prefix, err)
		}
		if len(keys) > 0 {
			if err := rdb.Unlink(ctx, keys...).Err(); err != nil {
				return fmt.Errorf("testworld: delete %d keys under %q: %w", len(keys), prefix, err)
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
