// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package testenv gives integration tests the addresses of the real RabbitMQ
// and Redis. Locally a test skips when a server does not answer; under CI=true
// it fails instead, so CI never passes on skipped integration tests. It also
// holds what every test shares: Eventually (the one wait until something
// holds), Returns and Refused (a call that must answer at once, a file
// refused naming it), FIFO, a Proxy that fails the network, a settable
// Clock and configuration isolation.
package testenv

import (
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Defaults used when A2ABUS_TEST_AMQP_URL / A2ABUS_TEST_REDIS_URL are unset.
const (
	DefaultAMQPURL  = "amqp://guest:guest@127.0.0.1:5672/"
	DefaultRedisURL = "redis://127.0.0.1:6379/0"
)

// AMQPURL returns the RabbitMQ URL for tests, skipping (or failing under CI) when it does not answer.
func AMQPURL(tb testing.TB) string {
	tb.Helper()
	return need(tb, "A2ABUS_TEST_AMQP_URL", DefaultAMQPURL, "5672")
}

// RedisURL returns the Redis URL for tests, skipping (or failing under CI) when it does not answer.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	return need(tb, "A2ABUS_TEST_REDIS_URL", DefaultRedisURL, "6379")
}

// InCI reports whether the suite runs under CI=true.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

func need(tb testing.TB, env, def, defPort string) string {
	tb.Helper()
	raw := os.Getenv(env)
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("testenv: %s=%q is not a URL: %v", env, raw, err)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), defPort)
	}
	conn, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		if InCI() {
			tb.Fatalf("testenv: %s (%s) unreachable under CI=true: %v", env, host, err)
		}
		tb.Skipf("testenv: %s (%s) unreachable, skipping: %v", env, host, err)
	}
	_ = conn.Close()
	return raw
}
