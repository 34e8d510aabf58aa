// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"net"
	"sync"
	"time"
)

// maxUnwritten bounds the bytes a coalescingConn holds unwritten: a Write
// beyond it waits for the socket, so the broker's flow control (it stops
// reading) still holds the publishers back.
const maxUnwritten = 1 << 20

// maxKeptBuffer is the largest write buffer kept for reuse.
const maxKeptBuffer = 64 << 10

// closeFlushTimeout bounds how long Close waits for the queued bytes (a
// last close-ok, say) to be written.
const closeFlushTimeout = time.Second

// coalescingConn sends everything written while a previous write was on
// the wire in one system call, from one writer goroutine. amqp091-go writes
// every publish and every ack with a system call of its own, under the
// connection's lock; under load this turns many small writes — and as many
// reads by the broker — into a few larger ones, while a write that finds
// nothing on the wire goes out at once, from its own goroutine.
//
// A queued Write returns once its bytes are queued, as a socket write
// returns once they are in the kernel's buffer. A failed write fails every
// later Write and closes the connection, so amqp091-go sees the failure on
// its reader.
type coalescingConn struct {
	net.Conn
	kick chan struct{} // wakes the writer goroutine
	done chan struct{} // closed by Close: the writer goroutine ends

	mu       sync.Mutex
	changed  *sync.Cond // signalled when the queue shrinks, the writer idles or the conn fails
	queued   []byte     // written, not yet sent
	spare    []byte     // the buffer the writer sent last, reused for the queue
	flushing bool       // the writer goroutine has bytes to send or on the wire
	err      error      // the failed write's error, or net.ErrClosed after Close

	closeOnce sync.Once
	closeErr  error
}

// coalesce wraps nc and starts its writer goroutine, which ends with Close
// or with a failed write.
func coalesce(nc net.Conn) *coalescingConn {
	c := &coalescingConn{Conn: nc, kick: make(chan struct{}, 1), done: make(chan struct{})}
	c.changed = sync.NewCond(&c.mu)
	go c.writeLoop()
	return c
}

// Write sends p at once from the calling goroutine when nothing is on the
// wire (a lone write pays no hand-off to the writer goroutine); otherwise
// it queues a copy of p for the writer goroutine, waiting only while
// maxUnwritten bytes are queued. Bytes go out in the order they were written.
func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && len(c.queued) >= maxUnwritten {
		c.changed.Wait()
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.flushing {
		c.queued = append(c.queued, p...)
		return len(p), nil
	}
	c.flushing = true // what is written meanwhile queues behind p
	c.mu.Unlock()
	_, err := c.Conn.Write(p)
	c.mu.Lock()
	if err != nil {
		c.fail(err)
		c.changed.Broadcast()
		return 0, err
	}
	if len(c.queued) > 0 {
		c.kick <- struct{}{} // never blocks: the writer took the last kick before it cleared flushing
	} else {
		c.flushing = false
	}
	c.changed.Broadcast()
	return len(p), nil
}

// fail records the first failed write and closes the connection, so that
// amqp091-go's reader fails too and shuts the connection down; every later
// Write fails. Called with mu held.
func (c *coalescingConn) fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.queued = nil
	c.flushing = false
	_ = c.Conn.Close()
}

// writeLoop sends the queue, all that queued up during the previous send
// at each turn, until Close or a failed write.
func (c *coalescingConn) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case <-c.kick:
		}
		if !c.flush() {
			return
		}
	}
}

// flush sends the queue until it is empty; false when a write failed.
func (c *coalescingConn) flush() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.changed.Broadcast()
	for len(c.queued) > 0 {
		buf := c.queued
		c.queued = c.spare[:0]
		c.mu.Unlock()
		_, err := c.Conn.Write(buf)
		c.mu.Lock()
		if cap(buf) <= maxKeptBuffer { // a burst's large buffer is not kept for the connection's life
			c.spare = buf
		}
		if err != nil {
			c.fail(err)
			return false
		}
		c.changed.Broadcast()
	}
	c.flushing = false
	return true
}

// Close lets the writer send what is queued (at most closeFlushTimeout),
// then stops it and closes the connection. It is idempotent; later Writes
// fail with net.ErrClosed.
func (c *coalescingConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		if c.err == nil && c.flushing {
			_ = c.Conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
			for c.err == nil && c.flushing {
				c.changed.Wait()
			}
		}
		if c.err == nil {
			c.err = net.ErrClosed
		}
		c.changed.Broadcast()
		c.mu.Unlock()
		close(c.done)
		c.closeErr = c.Conn.Close()
	})
	return c.closeErr
}
