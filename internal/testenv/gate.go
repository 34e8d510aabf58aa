// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Gate forwards TCP connections to a server once it is opened: until Open,
// a connection is accepted (and reported on Accepted) but nothing passes
// either way, so a client's handshake waits. A test holds one server's
// connections to see what a program does meanwhile — whether it dials its
// other connections at once, or only after this one is up.
type Gate struct {
	ln       net.Listener
	target   string
	open     chan struct{}
	once     sync.Once
	done     chan struct{} // closed when the test ends
	accepted chan struct{}

	live atomic.Int64 // connections accepted and not yet closed by either end

	mu    sync.Mutex
	conns []net.Conn
}

// NewGate listens on a free loopback port and forwards what each
// connection sends to target (host:port) once the gate is open. It is
// closed, with its connections, when tb ends.
func NewGate(tb testing.TB, target string) *Gate {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("gate: listen: %v", err)
	}
	g := &Gate{ln: ln, target: target, open: make(chan struct{}), done: make(chan struct{}), accepted: make(chan struct{}, 64)}
	go g.accept()
	tb.Cleanup(func() {
		_ = ln.Close()
		close(g.done)
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, c := range g.conns {
			_ = c.Close()
		}
	})
	return g
}

// GateURL returns a Gate to the server of rawURL and rawURL with its host
// replaced by the gate's address (credentials, path and query kept).
func GateURL(tb testing.TB, rawURL string) (*Gate, string) {
	tb.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		tb.Fatalf("gate: parse %q: %v", rawURL, err)
	}
	g := NewGate(tb, u.Host)
	u.Host = g.ln.Addr().String()
	return g, u.String()
}

// Accepted receives once for every connection the gate accepts.
func (g *Gate) Accepted() <-chan struct{} { return g.accepted }

// Live is the number of connections accepted that neither end has closed:
// a client that closed what it opened through the gate leaves none.
func (g *Gate) Live() int { return int(g.live.Load()) }

// Open lets the connections through, those held and those to come.
func (g *Gate) Open() { g.once.Do(func() { close(g.open) }) }

func (g *Gate) accept() {
	for {
		in, err := g.ln.Accept()
		if err != nil {
			return
		}
		g.track(in)
		g.live.Add(1)
		select {
		case g.accepted <- struct{}{}:
		default:
		}
		go g.forward(in)
	}
}

func (g *Gate) track(c net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.conns = append(g.conns, c)
}

// forward waits for the gate to open, then pipes in to the target both
// ways until either end closes.
func (g *Gate) forward(in net.Conn) {
	defer g.live.Add(-1)
	select {
	case <-g.open:
	case <-g.done:
		_ = in.Close()
		return
	}
	out, err := net.DialTimeout("tcp", g.target, 5*time.Second)
	if err != nil {
		_ = in.Close()
		return
	}
	g.track(out)
	go func() {
		_, _ = copyPlain(out, in)
		_ = out.Close()
	}()
	_, _ = copyPlain(in, out)
	_ = in.Close()
}

// copyPlain copies src to dst through a buffer. io.Copy between two TCP
// connections splices through a pipe that internal/poll pools until a
// garbage collection drops it: two file descriptors that outlive the
// connections and would read as leaked by a test counting the process's files.
func copyPlain(dst io.Writer, src io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{dst}, struct{ io.Reader }{src})
}
