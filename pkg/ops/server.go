package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// ServerOptions configures the ops HTTP listener.
type ServerOptions struct {
	// Addr is the host:port to listen on (port 0 picks one). Required.
	Addr string
	// PProf serves the Go profiler at /debug/pprof/.
	PProf bool
}

// Server is the ops HTTP listener: /metrics (the Ops's registry),
// /healthz (200 while the process serves), /readyz (200 when Ops.Ready
// says so, else 503 with the reasons) and, with ServerOptions.PProf,
// /debug/pprof/.
type Server struct {
	ln   net.Listener
	hs   *http.Server
	done chan struct{}
	err  error
}

// shutdownTimeout bounds Close.
const shutdownTimeout = 5 * time.Second

// readHeaderTimeout bounds a client's request headers.
const readHeaderTimeout = 10 * time.Second

// Serve listens on so.Addr and serves o's endpoints until Close. When ctx
// ends the process is draining: /readyz answers 503, /metrics and /healthz
// still answer, so that the last scrape and the probes see the shutdown.
func Serve(ctx context.Context, o *Ops, so ServerOptions) (*Server, error) {
	if o == nil {
		return nil, errors.New("ops: serve: no Ops")
	}
	ln, err := net.Listen("tcp", so.Addr)
	if err != nil {
		return nil, fmt.Errorf("ops: listen on %s (ops.listen): %w", so.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{ErrorLog: zap.NewStdLog(o.log), Registry: o.reg}))
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
	s := &Server{ln: ln, done: make(chan struct{}),
		hs: &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ErrorLog: zap.NewStdLog(o.log)}}
	go func() {
		defer close(s.done)
		if err := s.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
			o.log.Error("ops listener stopped", zap.String("addr", ln.Addr().String()), zap.Error(err))
		}
	}()
	context.AfterFunc(ctx, o.Drain)
	return s, nil
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the listener, letting requests in progress finish within a
// bound. Idempotent; a nil Server does nothing.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := s.hs.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.hs.Close())
	}
	<-s.done
	if err != nil {
		return fmt.Errorf("ops: close the listener: %w", err)
	}
	return s.err
}
