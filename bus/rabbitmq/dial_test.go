// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestDialConnectsBothLinksAtOnce: Dial opens its publish and consume
// connections together. The broker is behind a proxy that holds every
// connection until both have been dialled: a Dial that waited for one
// connection before dialling the other would wait forever, and the test
// fails instead.
func TestDialConnectsBothLinksAtOnce(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	held, heldURL := testenv.ProxyURL(t, e.url)
	held.Hold()
	done := make(chan error, 1)
	go func() {
		b, err := Dial(t.Context(), Options{URL: heldURL, Exchange: e.exchange, ConnectionName: t.Name()})
		if err == nil {
			err = b.Close()
		}
		done <- err
	}()
	bound := time.After(testenv.WaitBound)
	for i := range 2 {
		select {
		case <-held.Accepted():
		case err := <-done:
			t.Fatalf("Dial returned after %d connection(s): %v", i, err)
		case <-bound:
			t.Fatalf("the second connection was not dialled while the first was held: Dial connects one after the other")
		}
	}
	held.Up()
	if err := <-done; err != nil {
		t.Fatalf("Dial: %v", err)
	}
}

// TestDialOneLinkRefusedLeaksNothing: when the broker takes one of Dial's
// two connections and drops the other, Dial fails naming the dial, and
// the connection that was made is closed: the goroutines are those of
// before. Not parallel: it counts the process's goroutines.
func TestDialOneLinkRefusedLeaksNothing(t *testing.T) {
	e := newTestEnv(t)
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = forwardFirstOnly(t, u.Host)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(t.Context(), waitBound)
	defer cancel()
	b, err := Dial(ctx, Options{URL: u.String(), Exchange: e.exchange, ConnectionName: t.Name()})
	if err == nil {
		_ = b.Close()
		t.Fatal("Dial succeeded with one connection dropped")
	}
	if !strings.Contains(err.Error(), "rabbitmq: dial") {
		t.Errorf("Dial = %v, want the failed dial named", err)
	}
	testenv.Eventually(t, "the goroutines of before Dial, no more", func() bool { return runtime.NumGoroutine() <= before },
		testenv.Explain(func() string {
			buf := make([]byte, 1<<16)
			return fmt.Sprintf("%d goroutines before Dial, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}))
}

// forwardFirstOnly listens on a free loopback port, forwards the first
// connection it takes to target and closes every later one at once; it
// returns its address. Everything is closed when t ends.
func forwardFirstOnly(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for first := true; ; first = false {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			if !first {
				_ = in.Close()
				continue
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			track(in)
			track(out)
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
	return ln.Addr().String()
}
