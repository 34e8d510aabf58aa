// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/backoff"
)

// handshakeTimeout bounds the TCP, TLS and AMQP handshakes of one dial.
const handshakeTimeout = 30 * time.Second

// link keeps one AMQP connection of a role ("publish" or "consume") open: it
// re-dials with exponential backoff and jitter when the connection is lost and
// runs setup (topology declaration) on every new connection before handing
// it out.
type link struct {
	role  string
	url   string
	name  string
	tls   *tls.Config // Options.TLS; each dial uses a copy (tls.go)
	setup func(c *amqp.Connection) error
	retry backoff.Policy // the wait before each re-dial
	log   *zap.Logger
	done  <-chan struct{} // closed when the bus closes

	mu  sync.Mutex
	cur *session

	reconnects atomic.Uint64 // connections re-dialled after a loss (state.go)
}

// session is one connection, or the gap while re-dialling (conn nil); next is
// closed when the session is replaced.
type session struct {
	conn *amqp.Connection
	next chan struct{}
}

// connect dials and sets up the first connection; Dial fails on its error.
func (l *link) connect(ctx context.Context) error {
	c, err := l.dialAndSetup(ctx)
	if err != nil {
		return err
	}
	l.cur = &session{conn: c, next: make(chan struct{})}
	return nil
}

// run supervises the connection until ctx is done, re-dialling when it drops.
func (l *link) run(ctx context.Context) {
	for {
		s := l.current()
		lost := s.conn.NotifyClose(make(chan *amqp.Error, 1))
		select {
		case err := <-lost:
			reason := "closed"
			if err != nil {
				reason = err.Error()
			}
			l.log.Warn("rabbitmq connection lost, reconnecting",
				zap.String("role", l.role), zap.String("reason", reason))
		case <-ctx.Done():
			return
		}
		l.install(&session{next: make(chan struct{})})
		c, err := l.redial(ctx)
		if err != nil {
			return
		}
		l.install(&session{conn: c, next: make(chan struct{})})
		l.reconnects.Add(1)
	}
}

// redial retries until a connection is set up or ctx is done.
func (l *link) redial(ctx context.Context) (*amqp.Connection, error) {
	for attempt := 0; ; attempt++ {
		t := time.NewTimer(l.retry.Delay(attempt))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		c, err := l.dialAndSetup(ctx)
		if err == nil {
			if ctx.Err() != nil {
				_ = c.CloseDeadline(time.Now().Add(time.Second))
				return nil, ctx.Err()
			}
			l.log.Info("rabbitmq reconnected", zap.String("role", l.role), zap.Int("attempts", attempt+1))
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l.log.Warn("rabbitmq reconnect failed", zap.String("role", l.role),
			zap.Int("attempt", attempt+1), zap.Error(err))
	}
}

// dialAndSetup opens a connection and runs setup on it; a setup error closes
// the connection and fails the attempt.
func (l *link) dialAndSetup(ctx context.Context) (*amqp.Connection, error) {
	c, err := l.dial(ctx)
	if err != nil {
		return nil, err
	}
	// Setup is a series of round trips; closing the connection interrupts it.
	stop := context.AfterFunc(ctx, func() { _ = c.CloseDeadline(time.Now().Add(time.Second)) })
	err = l.setup(c)
	if !stop() {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	if err != nil {
		_ = c.CloseDeadline(time.Now().Add(time.Second))
		return nil, fmt.Errorf("set up %s connection to %s: %w", l.role, RedactURL(l.url), err)
	}
	return c, nil
}

// dial opens one AMQP connection, honouring ctx during the TCP, TLS and AMQP
// handshakes. The error names the host with the password redacted.
func (l *link) dial(ctx context.Context) (*amqp.Connection, error) {
	props := amqp.NewConnectionProperties()
	name := l.role
	if l.name != "" {
		name = l.name + " (" + l.role + ")"
	}
	props.SetClientConnectionName(name)
	var stop func() bool
	cfg := amqp.Config{
		Properties:      props,
		TLSClientConfig: l.tlsConfig(),
		Dial: func(network, addr string) (net.Conn, error) {
			var d net.Dialer
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			deadline := time.Now().Add(handshakeTimeout)
			if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
				deadline = dl
			}
			if err := nc.SetDeadline(deadline); err != nil {
				_ = nc.Close()
				return nil, err
			}
			// A cancelled ctx interrupts the handshake by expiring the deadline.
			stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
			return coalesce(nc), nil // under load, many frames per system call (coalesce.go)
		},
	}
	c, err := amqp.DialConfig(l.url, cfg)
	if stop != nil && !stop() && err == nil {
		// ctx ended after the handshake but the deadline may have hit the live socket.
		_ = c.CloseDeadline(time.Now().Add(time.Second))
		err = ctx.Err()
	}
	if err != nil {
		if cerr := ctxErr(ctx); cerr != nil {
			err = fmt.Errorf("%w (%w)", cerr, err)
		}
		return nil, fmt.Errorf("rabbitmq: dial %s (%s): %w", RedactURL(l.url), l.role, err)
	}
	return c, nil
}

// ctxErr is ctx.Err(), also once ctx's deadline has passed but its timer has
// not fired yet (the socket deadline, set to the same instant, may expire first).
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

func (l *link) current() *session {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

func (l *link) install(s *session) {
	l.mu.Lock()
	old := l.cur
	l.cur = s
	l.mu.Unlock()
	close(old.next)
}

// get returns the open connection, waiting while the link re-dials. A caller
// that found stale unusable passes it to wait for its replacement. get
// returns bus.ErrClosed once the bus is closed and no connection is open.
func (l *link) get(ctx context.Context, stale *amqp.Connection) (*amqp.Connection, error) {
	return l.getUntil(ctx, nil, stale)
}

// getUntil is get, its wait also ended by expire (context.DeadlineExceeded).
func (l *link) getUntil(ctx context.Context, expire <-chan time.Time, stale *amqp.Connection) (*amqp.Connection, error) {
	for {
		s := l.current()
		if s.conn != nil && s.conn != stale && !s.conn.IsClosed() {
			return s.conn, nil
		}
		select {
		case <-s.next:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for %s connection: %w", l.role, ctx.Err())
		case <-expire:
			return nil, fmt.Errorf("wait for %s connection: %w", l.role, context.DeadlineExceeded)
		case <-l.done:
			return nil, fmt.Errorf("wait for %s connection: %w", l.role, bus.ErrClosed)
		}
	}
}

// close closes the current connection (after run has returned).
func (l *link) close(deadline time.Time) error {
	s := l.current()
	if s.conn == nil || s.conn.IsClosed() {
		return nil
	}
	if err := s.conn.CloseDeadline(deadline); err != nil && !errors.Is(err, amqp.ErrClosed) {
		return fmt.Errorf("close %s connection: %w", l.role, err)
	}
	return nil
}
