// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/httpserve"
)

// ServerOptions configures the ops HTTP listener.
type ServerOptions struct {
	// Addr is the host:port to listen on (port 0 picks one). Required.
	Addr string
	// PProf serves the Go profiler at /debug/pprof/.
	PProf bool
	// Limits bound what one client can hold of the listener (the http.*
	// keys); a zero field takes its default.
	Limits httpserve.Limits
}

// Server is the ops HTTP listener: /metrics (the Ops's registry),
// /healthz (200 while the process serves), /readyz (200 when Ops.Ready
// says so, else 503 with the reasons) and, with ServerOptions.PProf,
// /debug/pprof/.
type Server struct {
	srv *httpserve.Server
}

// Serve listens on so.Addr and serves o's endpoints until Close. When ctx
// ends the process is draining: /readyz answers 503, /metrics and /healthz
// still answer, so that the last scrape and the probes see the shutdown.
func Serve(ctx context.Context, o *Ops, so ServerOptions) (*Server, error) {
	if o == nil {
		return nil, errors.New("ops: serve: no Ops")
	}
	limits, err := so.Limits.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("ops: serve: %w", err)
	}
	ln, err := httpserve.Listen(so.Addr, limits.MaxConnections)
	if err != nil {
		return nil, fmt.Errorf("ops: listen on %s (ops.listen): %w", so.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", o.reg.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := o.Ready(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintln(w, "not ready:", err)
			return
		}
		_, _ = fmt.Fprintln(w, "ready")
	})
	if so.PProf {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	srv, err := httpserve.Start(ln, mux, limits, zap.NewStdLog(o.log))
	if err != nil {
		return nil, fmt.Errorf("ops: serve: %w", err)
	}
	s := &Server{srv: srv}
	go func() {
		<-srv.Done()
		if err := srv.Err(); err != nil {
			o.log.Error("ops listener stopped", zap.String("addr", ln.Addr().String()), zap.Error(err))
		}
	}()
	context.AfterFunc(ctx, o.Drain)
	return s, nil
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Close stops the listener, letting requests in progress finish within a
// bound. Idempotent; a nil Server does nothing.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("ops: close the listener: %w", err)
	}
	return nil
}
