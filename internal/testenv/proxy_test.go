// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echoServer answers every line it reads with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// echo sends a line through c and reports whether it came back within wait.
func echo(c net.Conn, wait time.Duration) bool {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestProxyCutDownHangUp(t *testing.T) {
	p := NewProxy(t, echoServer(t))
	c := dial(t, p)
	if !echo(c, 5*time.Second) {
		t.Fatal("no echo through the proxy")
	}
	p.Cut()
	if echo(c, 5*time.Second) {
		t.Fatal("an echo on a connection cut")
	}
	if !echo(dial(t, p), 5*time.Second) {
		t.Fatal("no echo on a new connection after Cut")
	}

	p.Down()
	if echo(dial(t, p), 5*time.Second) {
		t.Fatal("an echo while the proxy is down")
	}
	p.Up()
	c = dial(t, p)
	if !echo(c, 5*time.Second) {
		t.Fatal("no echo after Up")
	}

	p.Hang()
	if echo(c, 200*time.Millisecond) {
		t.Fatal("an echo while the proxy hangs")
	}
	if echo(dial(t, p), 200*time.Millisecond) {
		t.Fatal("an echo on a new connection while the proxy hangs")
	}
}

// TestProxyHoldsUntilUp: a held connection is taken (Accepted, Live) but
// nothing passes until Up, which lets it through; closing it leaves none live.
func TestProxyHoldsUntilUp(t *testing.T) {
	p := NewProxy(t, echoServer(t))
	p.Hold()
	c := dial(t, p)
	select {
	case <-p.Accepted():
	case <-time.After(WaitBound):
		t.Fatal("the held connection was not reported on Accepted")
	}
	if echo(c, 200*time.Millisecond) {
		t.Fatal("an echo while the connection is held")
	}
	p.Up()
	// The first echo's line, sent while held, comes back first.
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("after Up: %q, %v; want the held line echoed", line, err)
	}
	if n := p.Live(); n != 1 {
		t.Fatalf("Live = %d with one connection open, want 1", n)
	}
	_ = c.Close()
	Eventually(t, "no connection live once the client closed it", func() bool { return p.Live() == 0 })
}
