// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/httpserve"
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
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", path); err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			_, _ = io.Copy(io.Discard, c)
		}()
		go func() { // a byte every 50ms: 50s for the whole body
			for range 1000 {
				select {
				case <-ended:
					return
				case <-time.After(50 * time.Millisecond):
				}
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}()
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			t.Fatalf("POST %s: a trickled body held the connection for 30s (read timeout %s)", path, limits.ReadTimeout)
		}
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
