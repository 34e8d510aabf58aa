// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout bounds Server.Close: requests in progress may finish
// within it, then the connections left (open streams) are closed.
const ShutdownTimeout = 5 * time.Second

// Server serves a handler on a listener within Limits. Build it with Start.
type Server struct {
	ln   net.Listener
	hs   *http.Server
	done chan struct{}
	err  error
}

// Start serves h on ln (from Listen) with the bounds of l (defaults filled
// in: Limits.WithDefaults) until Close. errLog receives net/http's own
// errors (nil: the standard logger). A negative bound is an error wrapping
// ErrInvalidLimits, and ln is closed.
func Start(ln net.Listener, h http.Handler, l Limits, errLog *log.Logger) (*Server, error) {
	l, err := l.WithDefaults()
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	s := &Server{ln: ln, done: make(chan struct{}), hs: NewServer(h, l, errLog)}
	go func() {
		defer close(s.done)
		if err := s.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = fmt.Errorf("httpserve: serve on %s: %w", ln.Addr(), err)
		}
	}()
	return s, nil
}

// NewServer is the http.Server of h bounded by l (which must have its
// defaults): Bound's body and write bounds, and the server's own header,
// idle and header-size bounds. It sets no ReadTimeout nor WriteTimeout,
// which would cut streams. Serve it on a Listen listener, which caps the
// connections.
func NewServer(h http.Handler, l Limits, errLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           Bound(h, l),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		ErrorLog:          errLog,
	}
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Done is closed when the server stops serving: after Close, or when its
// listener fails (Err says why).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why the server stopped serving before Close, once Done is closed; nil otherwise.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Close stops the server: it stops accepting, lets requests in progress
// finish within ShutdownTimeout, then closes the connections left. It
// returns why serving stopped before, if it did. Idempotent; a nil Server
// does nothing.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	var err error
	if e := s.hs.Shutdown(ctx); e != nil {
		err = errors.Join(fmt.Errorf("httpserve: shut down %s: %w", s.ln.Addr(), e), s.hs.Close())
	}
	<-s.done
	return errors.Join(s.err, err)
}
