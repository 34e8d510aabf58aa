// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package httpserve

import (
	"fmt"
	"net"
	"sync"
)

// Listen listens on the TCP address addr (port 0 picks one) and holds at
// most maxConns connections open at once: beyond, Accept waits until one is
// closed (the client waits in the kernel's backlog). maxConns must be positive.
func Listen(addr string, maxConns int) (net.Listener, error) {
	if maxConns <= 0 {
		return nil, fmt.Errorf("%w: MaxConnections must be positive, got %d", ErrInvalidLimits, maxConns)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, maxConns), done: make(chan struct{})}, nil
}

// limitListener is a net.Listener with at most cap(slots) connections open.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	err := net.ErrClosed
	l.closeOnce.Do(func() {
		close(l.done)
		err = l.Listener.Close()
	})
	return err
}

// limitConn gives its slot back when it is closed, once.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
