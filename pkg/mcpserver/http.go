// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// sessionIDHeader carries the MCP session of a streamable HTTP request;
// a POST without it opens a session.
const sessionIDHeader = "Mcp-Session-Id"

// CodeTooManySessions is the JSON-RPC error code of the answer to a
// request that would open a session beyond Options.MaxSessions (HTTP 503).
const CodeTooManySessions = -32000

// Handler is the streamable HTTP endpoint: each new MCP session gets its
// own Session. At most Options.MaxSessions are open at once: a request
// that would open one more is answered 503 with a JSON-RPC error saying so.
// The SDK closes a session when its client ends it or after IdleTimeout
// without a request, which frees its place and stops its watcher; ctx
// ending closes every session. Request bodies are bounded by the SDK's
// default (mcp.DefaultMaxRequestBodyBytes). It authenticates no one:
// ListenHTTP does, or serve it behind a proxy that does.
func (s *Server) Handler(ctx context.Context) http.Handler {
	return s.handler(ctx, 0)
}

// handler is Handler with request bodies bounded by maxBody (0: the SDK's default).
func (s *Server) handler(ctx context.Context, maxBody int64) http.Handler {
	h := &httpHandler{srv: s, ctx: ctx, open: map[*mcp.ServerSession]bool{}}
	h.sdk = mcp.NewStreamableHTTPHandler(sessionServer, &mcp.StreamableHTTPOptions{
		SessionTimeout: s.opts.IdleTimeout, MaxRequestBodyBytes: maxBody,
	})
	context.AfterFunc(ctx, h.closeAll)
	return h
}

// httpHandler counts the sessions of the SDK's handler and refuses those
// beyond the cap.
type httpHandler struct {
	srv *Server
	ctx context.Context
	sdk *mcp.StreamableHTTPHandler

	mu       sync.Mutex
	reserved int                         // places taken: sessions open and being opened
	open     map[*mcp.ServerSession]bool // the sessions open, to close when ctx ends
	closed   bool                        // ctx ended

	refused atomic.Int64 // requests refused a session, ever
	logged  atomic.Int64 // when a refusal was last logged (Unix ns)
}

// refusalLogEvery spaces the log lines of refused sessions: a flood of
// requests must not flood the log too.
const refusalLogEvery = 10 * time.Second

// newSessionKey carries, in a request's context, the Session a request
// that opens an MCP session is to get.
type newSessionKey struct{}

// sessionServer gives the SDK the MCP server of the Session ServeHTTP made
// for a request that opens a session; other requests (which the SDK asks
// too, for its protocol-version check) get none.
func sessionServer(r *http.Request) *mcp.Server {
	if sess, ok := r.Context().Value(newSessionKey{}).(*Session); ok {
		return sess.MCP()
	}
	return nil
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
		h.sdk.ServeHTTP(w, r) // a request of an open session (or one the SDK refuses)
		return
	}
	if err := h.reserve(); err != nil {
		h.refuse(w, err)
		return
	}
	sess, err := h.srv.NewSession(h.ctx)
	if err != nil {
		h.release(nil)
		h.srv.log.Error("mcp: cannot open a session", zap.Error(err))
		http.Error(w, "cannot open a session: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), newSessionKey{}, sess)))
	h.track(sess)
}

// errTooManySessions: a request would open a session beyond the cap.
var errTooManySessions = errors.New("mcpserver: too many sessions")

// errClosing: a request would open a session while the handler closes.
var errClosing = errors.New("mcpserver: the server is shutting down")

// reserve takes a place for a session about to be opened.
func (h *httpHandler) reserve() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return errClosing
	case h.reserved >= h.srv.opts.MaxSessions:
		return fmt.Errorf("%w: %d are open, the most allowed (mcp.max_sessions); close one (DELETE) or retry once an idle one has been closed (after %s without a request)",
			errTooManySessions, h.reserved, h.srv.opts.IdleTimeout)
	}
	h.reserved++
	return nil
}

// release gives back a place, and forgets ss (nil: a session that did not open).
func (h *httpHandler) release(ss *mcp.ServerSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reserved--
	delete(h.open, ss)
}

// track keeps the place of sess while the SDK keeps its session, and
// gives it back when the session closes (the client ends it, it idles out,
// ctx ends); a request that opened no session (refused by the SDK, or whose
// initialize failed) gives it back at once.
func (h *httpHandler) track(sess *Session) {
	var ss *mcp.ServerSession
	for ss = range sess.MCP().Sessions() {
	}
	if ss == nil {
		sess.Close()
		h.release(nil)
		return
	}
	h.mu.Lock()
	closed := h.closed
	h.open[ss] = true
	h.mu.Unlock()
	if closed {
		_ = ss.Close()
	}
	go func() {
		_ = ss.Wait()
		sess.Close()
		h.release(ss)
	}()
}

// closeAll closes every session once ctx has ended, and refuses new ones.
func (h *httpHandler) closeAll() {
	h.mu.Lock()
	h.closed = true
	open := make([]*mcp.ServerSession, 0, len(h.open))
	for ss := range h.open {
		open = append(open, ss)
	}
	h.mu.Unlock()
	for _, ss := range open {
		_ = ss.Close()
	}
}

// refuse answers a request that cannot open a session: 503, with a
// JSON-RPC error saying why (MCP clients show its message).
func (h *httpHandler) refuse(w http.ResponseWriter, err error) {
	n, now := h.refused.Add(1), time.Now().UnixNano()
	if last := h.logged.Load(); (last == 0 || now-last >= int64(refusalLogEvery)) && h.logged.CompareAndSwap(last, now) {
		h.srv.log.Warn("mcp: session refused (logged at most every 10s)", zap.Int64("refused_so_far", n), zap.Error(err))
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": CodeTooManySessions, "message": err.Error(), "data": map[string]int{"max_sessions": h.srv.opts.MaxSessions}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

// retryAfterSeconds is the Retry-After of a refused session.
const retryAfterSeconds = 5
