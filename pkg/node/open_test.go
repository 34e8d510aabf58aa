// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
)

// realConfig is the default configuration on the test servers, on an
// exchange of its own (deleted when t ends).
func realConfig(t *testing.T) *config.Config {
	t.Helper()
	amqpURL, redisURL := testenv.AMQPURL(t), testenv.RedisURL(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	cfg := config.Default()
	cfg.Bus.URL, cfg.Redis.URL = amqpURL, redisURL
	cfg.Bus.Exchange = "test.node-open-" + hex.EncodeToString(b)
	t.Cleanup(func() {
		conn, err := amqp.Dial(amqpURL)
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		if ch, err := conn.Channel(); err == nil {
			_, _ = ch.QueueDelete(bus.DeadQueue(cfg.Bus.Exchange).Name, false, false, false)
			_ = ch.ExchangeDelete(cfg.Bus.Exchange, false, false)
			_ = ch.ExchangeDelete(cfg.Bus.Exchange+".dlx", false, false)
		}
	})
	return cfg
}

// TestOpenDialsTheBusAndTheMemoryAtOnce: Open dials RabbitMQ and Redis
// together. Both servers are behind proxies that hold every connection until
// the test lets them through (Up), which it does only once each server has been
// dialled: an Open that dialled one after the other would wait forever for
// the first to answer, and the test fails instead.
func TestOpenDialsTheBusAndTheMemoryAtOnce(t *testing.T) {
	cfg := realConfig(t)
	busProxy, busURL := testenv.ProxyURL(t, cfg.Bus.URL)
	memProxy, memURL := testenv.ProxyURL(t, cfg.Redis.URL)
	busProxy.Hold()
	memProxy.Hold()
	cfg.Bus.URL, cfg.Redis.URL = busURL, memURL
	type result struct {
		n   *Node
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := Open(t.Context(), cfg, "test-open-at-once", nil)
		done <- result{n, err}
	}()
	bound := time.After(testenv.WaitBound)
	for _, g := range []struct {
		name  string
		proxy *testenv.Proxy
	}{{"RabbitMQ", busProxy}, {"Redis", memProxy}} {
		select {
		case <-g.proxy.Accepted():
		case r := <-done:
			t.Fatalf("Open returned before dialling %s: %v", g.name, r.err)
		case <-bound:
			t.Fatalf("%s was not dialled while the other server's connections were held: Open dials one after the other", g.name)
		}
	}
	busProxy.Up()
	memProxy.Up()
	r := <-done
	if r.err != nil {
		t.Fatalf("Open: %v", r.err)
	}
	if err := r.n.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenWithOneServerDownNamesItAndLeaksNothing: when RabbitMQ or Redis
// cannot be reached, Open's error names that one and not the other, and
// what was opened on the other is closed: the server that is up (behind a
// proxy) has no connection of the test's left, and the
// goroutines and file descriptors of the process are those of before.
func TestOpenWithOneServerDownNamesItAndLeaksNothing(t *testing.T) {
	const down = "127.0.0.1:1" // nothing listens there: the connection is refused
	for _, c := range []struct {
		name, want, notWant string
		down                func(cfg *config.Config) *testenv.Proxy
	}{
		{"memory down", "open working memory", "open bus", func(cfg *config.Config) *testenv.Proxy {
			cfg.Redis.URL = "redis://" + down + "/0"
			g, u := testenv.ProxyURL(t, cfg.Bus.URL)
			cfg.Bus.URL = u
			return g
		}},
		{"bus down", "open bus", "open working memory", func(cfg *config.Config) *testenv.Proxy {
			cfg.Bus.URL = "amqp://guest:guest@" + down + "/"
			g, u := testenv.ProxyURL(t, cfg.Redis.URL)
			cfg.Redis.URL = u
			return g
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := realConfig(t)
			up := c.down(cfg)
			goroutines, fds := runtime.NumGoroutine(), openFiles(t)
			n, err := Open(t.Context(), cfg, "test-open-down", nil)
			if err == nil {
				_ = n.Close()
				t.Fatal("Open succeeded with a server down")
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, c.notWant) || !strings.Contains(msg, down) {
				t.Errorf("Open = %q, want an error naming %q and %s only", msg, c.want, down)
			}
			testenv.Eventually(t, "no connection left to the server that is up", func() bool { return up.Live() == 0 },
				testenv.Explain(func() string { return fmt.Sprintf("%d connections open", up.Live()) }))
			testenv.Eventually(t, "the goroutines and files of before Open, no more", func() bool {
				return runtime.NumGoroutine() <= goroutines && openFiles(t) <= fds
			}, testenv.Explain(func() string {
				buf := make([]byte, 1<<16)
				return fmt.Sprintf("%d goroutines and %d files before Open, %d and %d after:\n%s",
					goroutines, fds, runtime.NumGoroutine(), openFiles(t), buf[:runtime.Stack(buf, true)])
			}))
		})
	}
}

// openFiles counts the process's open file descriptors (sockets included).
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
}

// fakeBus and fakeMemory are what OpenBoth's open functions return in its
// unit tests: they count their closes.
type fakeBus struct {
	bus.Bus
	closed atomic.Int32
}

func (b *fakeBus) Close() error { b.closed.Add(1); return nil }

type fakeMemory struct {
	memory.Memory
	closed atomic.Int32
}

func (m *fakeMemory) Close() error { m.closed.Add(1); return nil }

// TestOpenBothClosesWhatTheOtherOpened: when one side fails, the other is
// closed once it has opened and the error is the failure's alone (the
// bus's when both failed, as when they were opened in turn); nothing of
// either runs on after OpenBoth returns.
func TestOpenBothClosesWhatTheOtherOpened(t *testing.T) {
	errMem := errors.New("open working memory: refused")
	errBus := errors.New("open bus: refused")
	t.Run("memory fails after the bus opened", func(t *testing.T) {
		fb := &fakeBus{}
		opened := make(chan struct{})
		b, m, err := OpenBoth(t.Context(),
			func(context.Context) (bus.Bus, error) { defer close(opened); return fb, nil },
			func(context.Context) (memory.Memory, error) { <-opened; return nil, errMem })
		if b != nil || m != nil || err == nil || err.Error() != errMem.Error() {
			t.Fatalf("OpenBoth = %v, %v, %v; want nil, nil and the memory's error alone", b, m, err)
		}
		if n := fb.closed.Load(); n != 1 {
			t.Errorf("the bus opened was closed %d times, want once", n)
		}
	})
	t.Run("the memory opens after the bus failed", func(t *testing.T) {
		fm := &fakeMemory{}
		failed := make(chan struct{})
		b, m, err := OpenBoth(t.Context(),
			func(context.Context) (bus.Bus, error) { defer close(failed); return nil, errBus },
			func(context.Context) (memory.Memory, error) { <-failed; return fm, nil })
		if b != nil || m != nil || err == nil || err.Error() != errBus.Error() {
			t.Fatalf("OpenBoth = %v, %v, %v; want nil, nil and the bus's error alone", b, m, err)
		}
		if n := fm.closed.Load(); n != 1 {
			t.Errorf("the memory opened was closed %d times, want once", n)
		}
	})
	t.Run("both fail", func(t *testing.T) {
		var memDone atomic.Bool
		_, _, err := OpenBoth(t.Context(),
			func(context.Context) (bus.Bus, error) { return nil, errBus },
			func(context.Context) (memory.Memory, error) { defer memDone.Store(true); return nil, errMem })
		if err == nil || err.Error() != errBus.Error() {
			t.Fatalf("OpenBoth = %v, want the bus's error alone", err)
		}
		if !memDone.Load() {
			t.Error("OpenBoth returned before the memory's open did")
		}
	})
}

// TestOpenLogsAsIfTheMemoryWereOpenedAfterTheBus: the working memory is
// opened beside the bus, but its log lines are written only once the bus
// is open: with both servers down, the error is the bus's and nothing of
// the memory's (go-redis's own dial failures) is logged, as when the
// memory was never dialled; with the bus up, the memory's lines are there.
func TestOpenLogsAsIfTheMemoryWereOpenedAfterTheBus(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	cfg := config.Default()
	cfg.Bus.URL, cfg.Redis.URL = "amqp://guest:guest@127.0.0.1:1/", "redis://127.0.0.1:2/0" // nothing listens on ports 1 and 2
	if _, err := Open(t.Context(), cfg, "test-open-logs", zap.New(core)); err == nil || !strings.Contains(err.Error(), "open bus") {
		t.Fatalf("Open = %v, want the bus's error", err)
	}
	for _, e := range logs.All() {
		t.Errorf("logged with the bus down: %s %v", e.Message, e.ContextMap())
	}

	cfg = realConfig(t)
	core, logs = observer.New(zap.DebugLevel)
	n, err := Open(t.Context(), cfg, "test-open-logs", zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	if logs.FilterMessage("redis working memory connected").Len() != 1 {
		t.Errorf("the memory's line is missing with the bus up: %v", logs.All())
	}
}
