// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"time"

	"github.com/a2abus/a2abus/internal/httpserve"
)

// HTTPConfig bounds every HTTP listener a2abus serves (ops.listen, mcp
// --http): what one client can hold of it. A stream (MCP's server-sent
// events) may last as long as its client reads it; what is bounded is each
// request's headers and body, each write of a response, idle connections
// and how many are open at once.
type HTTPConfig struct {
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout" yaml:"read_header_timeout"`
	// ReadTimeout bounds the reading of a request's body, from the end of
	// its headers: a body that trickles in is cut off.
	ReadTimeout time.Duration `mapstructure:"read_timeout" yaml:"read_timeout"`
	// WriteTimeout bounds each write of a response: a client that stops
	// reading is cut off.
	WriteTimeout time.Duration `mapstructure:"write_timeout" yaml:"write_timeout"`
	// IdleTimeout closes a kept-alive connection idle this long between requests.
	IdleTimeout time.Duration `mapstructure:"idle_timeout" yaml:"idle_timeout"`
	// MaxHeaderBytes bounds the size of a request's headers.
	MaxHeaderBytes int `mapstructure:"max_header_bytes" yaml:"max_header_bytes"`
	// MaxBodyBytes bounds the size of a request's body (413 beyond).
	MaxBodyBytes int `mapstructure:"max_body_bytes" yaml:"max_body_bytes"`
	// MaxConnections bounds the connections one listener holds open at
	// once; a further client waits until one closes.
	MaxConnections int `mapstructure:"max_connections" yaml:"max_connections"`
}

// Bounds of the http section.
const (
	minHTTPHeaderBytes = 1 << 10
	maxHTTPHeaderBytes = 16 << 20
	minHTTPBodyBytes   = 1 << 10
	maxHTTPBodyBytes   = 1 << 30
	maxHTTPConnections = 1_000_000
)

// defaultHTTP is the http section of Default.
func defaultHTTP() HTTPConfig {
	return HTTPConfig{
		ReadHeaderTimeout: httpserve.DefaultReadHeaderTimeout,
		ReadTimeout:       httpserve.DefaultReadTimeout,
		WriteTimeout:      httpserve.DefaultWriteTimeout,
		IdleTimeout:       httpserve.DefaultIdleTimeout,
		MaxHeaderBytes:    httpserve.DefaultMaxHeaderBytes,
		MaxBodyBytes:      httpserve.DefaultMaxBodyBytes,
		MaxConnections:    httpserve.DefaultMaxConnections,
	}
}

// Limits are the bounds of the section, as the HTTP listeners take them.
func (c HTTPConfig) Limits() httpserve.Limits {
	return httpserve.Limits{
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
		MaxBodyBytes:      int64(c.MaxBodyBytes),
		MaxConnections:    c.MaxConnections,
	}
}

func (c *HTTPConfig) validate() []error {
	return []error{
		positive("http.read_header_timeout", c.ReadHeaderTimeout),
		positive("http.read_timeout", c.ReadTimeout),
		positive("http.write_timeout", c.WriteTimeout),
		positive("http.idle_timeout", c.IdleTimeout),
		between("http.max_header_bytes", c.MaxHeaderBytes, minHTTPHeaderBytes, maxHTTPHeaderBytes),
		between("http.max_body_bytes", c.MaxBodyBytes, minHTTPBodyBytes, maxHTTPBodyBytes),
		between("http.max_connections", c.MaxConnections, 1, maxHTTPConnections),
	}
}
