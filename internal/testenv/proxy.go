// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a server so that a test can fail the
// network as it fails in production, without touching the server or its
// other clients: Cut drops the connections open now (clients can connect
// again), Down makes the server gone (and refuses new connections) until Up,
// Hang makes it hang (connections stay open, nothing passes), Hold keeps the
// connections it takes from reaching the server until Up (a client's
// handshake waits: a test sees whether a program dials its other servers
// meanwhile). Accepted and Live tell what the clients opened and left open.
type Proxy struct {
	ln       net.Listener
	target   string
	done     chan struct{} // closed when the test ends
	accepted chan struct{}
	live     atomic.Int64 // connections taken that neither end has closed

	mu    sync.Mutex
	down  bool          // Down: new connections are closed at once
	hang  bool          // Hang: the bytes read are dropped
	held  chan struct{} // Hold: closed by Up, which lets the held connections through
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
	p := &Proxy{ln: ln, target: target, done: make(chan struct{}), accepted: make(chan struct{}, 64), conns: map[net.Conn]struct{}{}}
	go p.accept()
	tb.Cleanup(func() {
		_ = ln.Close()
		close(p.done)
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

// Hold takes the connections to come but does not forward them (it does
// not dial the server for them) until Up: their clients wait, as for a
// server slow to answer.
func (p *Proxy) Hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = make(chan struct{})
	}
}

// Up undoes Down, Hang and Hold: connections are taken and forwarded again,
// the held ones too.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.hang = false, false
	if p.held != nil {
		close(p.held)
		p.held = nil
	}
}

// Accepted receives once for each connection the proxy takes (the first 64
// not received are kept).
func (p *Proxy) Accepted() <-chan struct{} { return p.accepted }

// Live is the number of connections taken that are not closed yet: a
// client that closed what it opened through the proxy leaves none.
func (p *Proxy) Live() int { return int(p.live.Load()) }

func (p *Proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		select {
		case p.accepted <- struct{}{}:
		default:
		}
		p.mu.Lock()
		down, held := p.down, p.held
		if !down {
			p.conns[in] = struct{}{}
		}
		p.mu.Unlock()
		if down {
			_ = in.Close()
			continue
		}
		p.live.Add(1)
		go p.forward(in, held)
	}
}

// forward dials the server for in (once held, if not nil, is closed) and
// pipes the two both ways until either ends.
func (p *Proxy) forward(in net.Conn, held chan struct{}) {
	defer p.live.Add(-1)
	if held != nil {
		select {
		case <-held:
		case <-p.done:
		}
	}
	var out net.Conn
	select {
	case <-p.done:
	default:
		out, _ = net.DialTimeout("tcp", p.target, 5*time.Second)
	}
	p.mu.Lock()
	_, open := p.conns[in] // not cut while held or dialling
	if out == nil || !open || p.down {
		delete(p.conns, in)
		p.mu.Unlock()
		_ = in.Close()
		if out != nil {
			_ = out.Close()
		}
		return
	}
	p.conns[out] = struct{}{}
	p.mu.Unlock()
	piped := make(chan struct{})
	go func() {
		defer close(piped)
		p.pipe(out, in)
	}()
	p.pipe(in, out)
	<-piped
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
