// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/soak"
	"github.com/a2abus/a2abus/internal/testca"
	"github.com/a2abus/a2abus/memory/redismem"
)

// tlsServers starts a Redis that speaks only TLS and requires client
// certificates of a new CA, and a Sentinel (also TLS only) monitoring it.
func tlsServers(t *testing.T) (files testca.Files, redis, sentinel *soak.Redis) {
	t.Helper()
	files = testca.New(t)
	st := soak.ServerTLS{CA: files.CA, Cert: files.ServerCert, Key: files.ServerKey}
	dirs := []string{filepath.Join(files.Dir, "redis"), filepath.Join(files.Dir, "sentinel")}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	redis, err := soak.StartRedisTLS(ctx, dirs[0], st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(redis.Stop)
	sentinel, err = soak.StartSentinelTLS(ctx, dirs[1], st, redis, "a2abus-tls")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sentinel.Stop)
	return files, redis, sentinel
}

// roundTrip stores and reads back a value through m.
func roundTrip(t *testing.T, what string, m *redismem.Memory) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	key := "tls-" + randomID(t)
	if err := m.Set(ctx, key, []byte("over TLS"), time.Minute); err != nil {
		t.Fatalf("%s: Set: %v", what, err)
	}
	if got, err := m.Get(ctx, key); err != nil || string(got) != "over TLS" {
		t.Fatalf("%s: Get = %q, %v; want \"over TLS\"", what, got, err)
	}
}

func TestTLSServers(t *testing.T) {
	files, redis, sentinel := tlsServers(t)
	sentinelAddr := strings.TrimPrefix(sentinel.URL, "rediss://")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	t.Run("single URL with client certificate", func(t *testing.T) {
		m, err := redismem.New(ctx, redismem.Options{URL: redis.URL, TLS: files.ClientTLS(t, true)})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = m.Close() }()
		roundTrip(t, "rediss", m)
	})
	t.Run("Sentinel and its master over TLS", func(t *testing.T) {
		m, err := redismem.New(ctx, redismem.Options{Addrs: []string{sentinelAddr}, MasterName: "a2abus-tls", TLS: files.ClientTLS(t, true)})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = m.Close() }()
		roundTrip(t, "sentinel", m)
	})
	t.Run("another CA is refused", func(t *testing.T) {
		wrong := files.ClientTLS(t, true)
		wrong.RootCAs = testca.New(t).ClientTLS(t, false).RootCAs
		_, err := redismem.New(ctx, redismem.Options{URL: redis.URL, TLS: wrong})
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) {
			t.Errorf("New trusting another CA = %v, want x509.UnknownAuthorityError", err)
		}
	})
	t.Run("no client certificate is refused by the server", func(t *testing.T) {
		// Under TLS 1.3 the server's refusal comes as its alert, or as a reset
		// when the client's first write races it.
		_, err := redismem.New(ctx, redismem.Options{URL: redis.URL, TLS: files.ClientTLS(t, false)})
		var verify *tls.CertificateVerificationError
		if err == nil || errors.As(err, &verify) {
			t.Errorf("New without a client certificate = %v, want the server's refusal", err)
		}
	})
	t.Run("plain TCP to Addrs without TLS fails", func(t *testing.T) {
		_, err := redismem.New(ctx, redismem.Options{Addrs: []string{strings.TrimPrefix(strings.TrimSuffix(redis.URL, "/0"), "rediss://")}})
		if err == nil {
			t.Error("New without TLS to a TLS-only server succeeded")
		}
	})
}
