// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// clientTLS is the TLS configuration the built go-redis client of o holds.
func clientTLS(t *testing.T, o Options) *tls.Config {
	t.Helper()
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := o.newClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	switch c := c.(type) {
	case *goredis.Client: // a single server, or Sentinel's failover client
		return c.Options().TLSConfig
	case *goredis.ClusterClient:
		return c.Options().TLSConfig
	default:
		t.Fatalf("unexpected client %T", c)
		return nil
	}
}

// The TLS configuration reaches go-redis in every mode, as a copy, at least TLS 1.2.
func TestTLSReachesGoRedisInEveryMode(t *testing.T) {
	roots := x509.NewCertPool()
	given := &tls.Config{RootCAs: roots, ServerName: "redis.internal", Certificates: []tls.Certificate{{}}}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"single URL", Options{URL: "rediss://:pw@127.0.0.1:6380/0"}},
		{"Sentinel", Options{Addrs: []string{"127.0.0.1:26379", "127.0.0.1:26380"}, MasterName: "mymaster"}},
		{"Cluster", Options{Addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001"}}},
		{"single address", Options{Addrs: []string{"127.0.0.1:6380"}}},
	} {
		tc.opts.TLS = given
		got := clientTLS(t, tc.opts)
		switch {
		case got == nil:
			t.Errorf("%s: the client has no TLS configuration", tc.name)
		case got == given:
			t.Errorf("%s: the client holds the caller's configuration, not a copy", tc.name)
		case got.RootCAs != roots || got.ServerName != "redis.internal" || len(got.Certificates) != 1:
			t.Errorf("%s: the client's TLS configuration lost the CA, server name or certificate: %+v", tc.name, got)
		case got.MinVersion != tls.VersionTLS12:
			t.Errorf("%s: MinVersion = %x, want TLS 1.2", tc.name, got.MinVersion)
		}
	}
}

func TestNoTLSUnlessAsked(t *testing.T) {
	if got := clientTLS(t, Options{Addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001"}}); got != nil {
		t.Errorf("Cluster without TLS: TLSConfig = %+v, want nil", got)
	}
	if got := clientTLS(t, Options{URL: "redis://127.0.0.1:6379/0"}); got != nil {
		t.Errorf("redis:// without TLS: TLSConfig = %+v, want nil", got)
	}
	// rediss:// alone keeps go-redis's default: system roots, the URL's host.
	if got := clientTLS(t, Options{URL: "rediss://redis.example:6380/0"}); got == nil || got.ServerName != "redis.example" || got.RootCAs != nil {
		t.Errorf("rediss:// without TLS: TLSConfig = %+v, want system roots and ServerName redis.example", got)
	}
}

func TestTLSNeedsARedissURL(t *testing.T) {
	_, err := Options{URL: "redis://:topsecret@127.0.0.1:6379/0", TLS: &tls.Config{}}.withDefaults()
	if !errors.Is(err, memory.ErrInvalidArgument) || !strings.Contains(err.Error(), "rediss://") || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("TLS with redis:// = %v, want ErrInvalidArgument naming rediss:// without the password", err)
	}
}
