// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/httpserve"
)

// Path is where ListenHTTP serves the streamable HTTP endpoint.
const Path = "/mcp"

// TokenRealm is the realm of the WWW-Authenticate challenge of a request
// without the bearer token.
const TokenRealm = "a2abus mcp"

// ErrNoAuth: ListenHTTP was asked to serve beyond loopback without a
// token, and without HTTPOptions.InsecureNoAuth.
var ErrNoAuth = errors.New("mcpserver: no bearer token to serve beyond loopback")

// HTTPOptions configure ListenHTTP.
type HTTPOptions struct {
	// Addr is the host:port to listen on (port 0 picks one). Required.
	Addr string
	// Token is the bearer token every request must carry (Authorization:
	// Bearer <token>), compared in constant time. Empty: none, which only a
	// loopback address allows, unless InsecureNoAuth.
	Token string
	// InsecureNoAuth serves a non-loopback address without a token: anyone
	// who reaches it can invoke agents.
	InsecureNoAuth bool
	// Limits bound what one client can hold of the listener; a zero field
	// takes its default. MaxBodyBytes also bounds the MCP messages.
	Limits httpserve.Limits
}

// HTTPServer is the streamable HTTP endpoint listening: ListenHTTP makes
// it, Run serves it.
type HTTPServer struct {
	srv    *httpserve.Server
	cancel context.CancelFunc // closes the sessions
}

// ListenHTTP listens on o.Addr and serves the streamable HTTP endpoint at
// Path within o.Limits, each request checked for o.Token. A non-loopback
// address without a token is refused (ErrNoAuth) unless o.InsecureNoAuth.
// ctx bounds the sessions, as Handler's. Serve it with Run.
func (s *Server) ListenHTTP(ctx context.Context, o HTTPOptions) (*HTTPServer, error) {
	limits, err := o.Limits.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	ln, err := httpserve.Listen(o.Addr, limits.MaxConnections)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listen on %s: %w", o.Addr, err)
	}
	if o.Token == "" && !httpserve.IsLoopback(ln.Addr()) {
		if !o.InsecureNoAuth {
			_ = ln.Close()
			return nil, fmt.Errorf("%w: %s is not a loopback address: set mcp.token or mcp.token_file (A2ABUS_MCP_TOKEN) "+
				"for clients to send as \"Authorization: Bearer <token>\", or listen on 127.0.0.1; mcp.insecure_no_auth: true "+
				"serves it to anyone who reaches it", ErrNoAuth, ln.Addr())
		}
		s.log.Warn("mcp: serving HTTP beyond loopback without authentication (mcp.insecure_no_auth): anyone who reaches it can invoke agents",
			zap.Stringer("addr", ln.Addr()))
	}
	hctx, cancel := context.WithCancel(ctx)
	mux := http.NewServeMux()
	mux.Handle(Path, s.handler(hctx, limits.MaxBodyBytes))
	var h http.Handler = mux
	if o.Token != "" {
		h = httpserve.BearerAuth(mux, o.Token, TokenRealm)
	}
	srv, err := httpserve.Start(ln, h, limits, zap.NewStdLog(s.log))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	return &HTTPServer{srv: srv, cancel: cancel}, nil
}

// URL is the endpoint's URL: http://<the address bound>/mcp.
func (h *HTTPServer) URL() string { return "http://" + h.srv.Addr().String() + Path }

// Run serves until ctx ends, then closes (Close); it returns early with an
// error when the listener fails.
func (h *HTTPServer) Run(ctx context.Context) error {
	select {
	case <-h.srv.Done():
		h.cancel()
		return fmt.Errorf("mcpserver: serve http: %w", h.srv.Err())
	case <-ctx.Done():
	}
	return h.Close()
}

// Close closes the sessions (their event streams end), then the listener,
// letting requests in progress finish within httpserve.ShutdownTimeout.
// Idempotent.
func (h *HTTPServer) Close() error {
	h.cancel()
	if err := h.srv.Close(); err != nil {
		return fmt.Errorf("mcpserver: close the http listener: %w", err)
	}
	return nil
}
