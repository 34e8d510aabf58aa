// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/ops"
)

// TestListenerBounds: the ops listener cuts off a client that trickles a
// request body (it held a connection for minutes with only a header
// bound), while /healthz still answers; the bounds are the ones given.
func TestListenerBounds(t *testing.T) {
	o, err := ops.New(ops.Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	limits := httpserve.Limits{ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond, MaxConnections: 8}
	s, err := ops.Serve(context.Background(), o, ops.ServerOptions{Addr: "127.0.0.1:0", Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	for _, path := range []string{"/metrics", "/healthz", "/nothing"} {
		head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", path)
		testenv.Trickle(t, fmt.Sprintf("POST %s (read timeout %s)", path, limits.ReadTimeout), s.Addr().String(), head, 'x')
	}
	resp, err := http.Get("http://" + s.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %s", resp.Status)
	}
	if _, err := ops.Serve(context.Background(), o, ops.ServerOptions{Addr: "127.0.0.1:0", Limits: httpserve.Limits{ReadTimeout: -time.Second}}); err == nil {
		t.Error("a negative read timeout was accepted")
	}
}
