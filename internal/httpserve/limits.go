// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package httpserve is what every HTTP listener of a2abus is built with (the
// ops listener, mcp --http, and the listeners to come): a listener that caps
// its connections, a server whose headers, bodies, writes and idle
// connections are bounded, and bearer-token authentication. It uses the
// standard library only, so any package may import it.
//
// The bounds leave long-lived responses alone: a stream (server-sent events)
// may last as long as its client keeps reading it. What is bounded is each
// read of a request body (ReadTimeout, from the end of its headers) and
// each write of a response (WriteTimeout, per write), not the response as a
// whole, which http.Server's own ReadTimeout and WriteTimeout would cut.
package httpserve

import (
	"errors"
	"fmt"
	"time"
)

// Defaults of Limits (a zero field takes its default).
const (
	// DefaultReadHeaderTimeout bounds the reading of a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds a request's body: it must have arrived this
	// long after the request's headers.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds one write of a response to the client.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection that sends no request for this long.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxHeaderBytes bounds a request's headers.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxBodyBytes bounds a request's body.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxConnections bounds the connections a listener holds open at once.
	DefaultMaxConnections = 512
)

// ErrInvalidLimits: a bound is negative.
var ErrInvalidLimits = errors.New("httpserve: invalid limits")

// Limits bound what one client can hold of an HTTP listener. A zero field
// takes its default; none may be negative.
type Limits struct {
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a request's body, counted from the
	// end of its headers: a body that trickles in is cut off.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response: a client that stops
	// reading is cut off. A response that keeps being read (a stream) may
	// last longer.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection idle this long between requests.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the size of a request's headers.
	MaxHeaderBytes int
	// MaxBodyBytes bounds the size of a request's body (413 beyond).
	MaxBodyBytes int64
	// MaxConnections bounds the connections open at once; a connection
	// beyond waits to be accepted until one closes.
	MaxConnections int
}

// WithDefaults returns l with every zero field set to its default, or an
// error wrapping ErrInvalidLimits naming a negative one.
func (l Limits) WithDefaults() (Limits, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"ReadHeaderTimeout", int64(l.ReadHeaderTimeout)}, {"ReadTimeout", int64(l.ReadTimeout)},
		{"WriteTimeout", int64(l.WriteTimeout)}, {"IdleTimeout", int64(l.IdleTimeout)},
		{"MaxHeaderBytes", int64(l.MaxHeaderBytes)}, {"MaxBodyBytes", l.MaxBodyBytes}, {"MaxConnections", int64(l.MaxConnections)},
	} {
		if f.v < 0 {
			return l, fmt.Errorf("%w: %s must not be negative, got %d", ErrInvalidLimits, f.name, f.v)
		}
	}
	l.ReadHeaderTimeout = orDefault(l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	l.ReadTimeout = orDefault(l.ReadTimeout, DefaultReadTimeout)
	l.WriteTimeout = orDefault(l.WriteTimeout, DefaultWriteTimeout)
	l.IdleTimeout = orDefault(l.IdleTimeout, DefaultIdleTimeout)
	l.MaxHeaderBytes = orDefault(l.MaxHeaderBytes, DefaultMaxHeaderBytes)
	l.MaxBodyBytes = orDefault(l.MaxBodyBytes, DefaultMaxBodyBytes)
	l.MaxConnections = orDefault(l.MaxConnections, DefaultMaxConnections)
	return l, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
