// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a server so that a test can fail the
// network as it fails in production, without touching the server or its
// other clients: Cut drops the connections open now (clients can connect
// again), Down makes the server gone (and refuses new connections) until Up,
// Hang makes it hang (connections stay open, nothing passes).
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool // Down: new connections are closed at once
	hang  bool // Hang: the bytes read are dropped
	conns map[net.Conn]struct{}
}

// NewProxy listens on a free loopback port and forwards every connection to
// target (host:port). It is closed, with its connections, when tb ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("proxy: listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.accept()
	tb.Cleanup(func() {
		_ = ln.Close()
		p.Cut()
	})
	return p
}

// ProxyURL returns a Proxy to the server of rawURL and rawURL with its host
// replaced by the proxy's address (credentials, path and query kept).
func ProxyURL(tb testing.TB, rawURL string) (*Proxy, string) {
	tb.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		tb.Fatalf("proxy: parse %q: %v", rawURL, err)
	}
	p := NewProxy(tb, u.Host)
	u.Host = p.Addr()
	return p, u.String()
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every connection open through the proxy now: both ends see
// the connection drop.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutLocked()
}

// Down cuts every connection and closes the new ones at once until Up: the
// server is gone.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.cutLocked()
}

func (p *Proxy) cutLocked() {
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Hang makes the server hang until Up: connections stay open and new ones
// are taken, but nothing passes either way.
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hang = true
}

// Up undoes Down and Hang: connections are taken and forwarded again.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.hang = false, false
}

func (p *Proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			_ = in.Close()
			continue
		}
		out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		if p.down { // Down came while dialling
			p.mu.Unlock()
			_, _ = in.Close(), out.Close()
			continue
		}
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go p.pipe(out, in)
		go p.pipe(in, out)
	}
}

// pipe copies src to dst, dropping the bytes while the proxy hangs; when
// either side ends, both are closed.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			hang := p.hang
			p.mu.Unlock()
			if !hang {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	delete(p.conns, src)
	delete(p.conns, dst)
	p.mu.Unlock()
	_ = src.Close()
	_ = dst.Close()
}
