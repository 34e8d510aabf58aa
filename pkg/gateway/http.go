// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/log"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// request is what the gateway knows of one HTTP request: who sends it,
// for which agent, and what must change in its answer.
type request struct {
	principal string
	caller    *caller.Caller
	agent     directory.Entry
	reply     *reply
	trace     a2a.Trace
	method    string // the metrics label
	kind      string // "jsonrpc", "rest" or "" (cards, catalog): the shape of the errors written here
}

type requestKey struct{}

// exchange is what the gateway keeps of one request, allocated at once.
type exchange struct {
	rq    request
	reply reply
	rw    replyWriter
}

func requestFrom(ctx context.Context) *request {
	rq, _ := ctx.Value(requestKey{}).(*request)
	return rq
}

// The paths of the gateway.
const (
	// AgentsPath is the catalog; AgentsPath/<Name> the agent's JSON-RPC endpoint.
	AgentsPath = "/agents"
	// RESTPath follows AgentsPath/<Name> for the agent's HTTP+JSON endpoint.
	RESTPath = "/rest"
	// CardPath follows AgentsPath/<Name> for the agent's card.
	CardPath = "/.well-known/agent-card.json"
)

// routes is the gateway's handler: health and readiness, the catalog and
// the cards, and each agent's JSON-RPC and REST endpoints, every request
// counted (metrics) and, but for health and (with PublicCards) the cards,
// authenticated and rate-limited per principal.
func (g *Gateway) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", g.serveReady)
	mux.Handle(AgentsPath, g.entry("catalog", g.opts.PublicCards, g.serveCatalog))
	mux.Handle(AgentsPath+"/{name}"+CardPath, g.entry("card", g.opts.PublicCards, g.serveCard))
	mux.Handle(AgentsPath+"/{name}", g.entry("jsonrpc", false, g.serveJSONRPC))
	mux.Handle(AgentsPath+"/{name}"+RESTPath+"/{path...}", g.entry("rest", false, g.serveREST))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		x := &exchange{} // one allocation for the request, its reply and its writer
		rq, rw := &x.rq, &x.rw
		rq.reply, rq.method = &x.reply, "other"
		rw.ResponseWriter, rw.reply = w, &x.reply
		defer func() {
			rw.commit()
			g.metrics.request(rq.method, rw.status, time.Since(start))
		}()
		ctx := log.AttachLogger(context.WithValue(r.Context(), requestKey{}, rq), g.slog)
		mux.ServeHTTP(rw, r.WithContext(ctx))
	})
}

func (g *Gateway) serveReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if g.ctx.Err() != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: the gateway is closing\n")
		return
	}
	if g.opts.Ready != nil {
		if err := g.opts.Ready(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintln(w, "not ready:", err)
			return
		}
	}
	_, _ = io.WriteString(w, "ready\n")
}

// entry authenticates a request (unless public) and rate-limits its
// principal before serve sees it; kind shapes the errors it writes.
func (g *Gateway) entry(kind string, public bool, serve func(http.ResponseWriter, *http.Request, *request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestFrom(r.Context())
		rq.kind, rq.method = kind, kind
		if !public {
			name, aerr := g.authenticate(r.Context(), r)
			if aerr != nil {
				g.metrics.refused("auth")
				if aerr.status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", challenge(aerr))
					writeError(w, rq, aerr.status, codeUnauthenticated, "unauthorized: "+aerr.reason)
				} else {
					writeError(w, rq, aerr.status, codeUnauthorized, "forbidden: "+aerr.reason)
				}
				return
			}
			rq.principal, rq.caller = name, g.callerOf(name)
			if wait, ok := g.rates.take(name); !ok {
				g.metrics.refused("rate")
				w.Header().Set("Retry-After", retryAfter(wait))
				writeError(w, rq, http.StatusTooManyRequests, codeServerError,
					fmt.Sprintf("too many requests: %s may make %g a second (burst %d); retry in %s", name, g.opts.Rate, g.opts.Burst, wait.Round(time.Millisecond)))
				return
			}
		}
		rq.trace = a2a.Trace{Parent: r.Header.Get(a2a.HeaderTraceParent), State: r.Header.Get(a2a.HeaderTraceState)}
		if !rq.trace.Valid() {
			rq.trace = a2a.Trace{}
		}
		serve(w, r, rq)
	})
}

// baseURL is the gateway's URL as clients reach it: Options.PublicURL, or
// the request's scheme and Host.
func (g *Gateway) baseURL(r *http.Request) string {
	if g.opts.PublicURL != "" {
		return g.opts.PublicURL
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// served reports whether the gateway serves e's card and takes new tasks
// for it: the directory lists it online, or it is well-known (its tasks
// wait in its queue while it does not run).
func served(e directory.Entry) bool { return e.Status == directory.StatusOnline || e.WellKnown }

// listed finds the agent called name for a request: for its card, one the
// gateway serves; for the methods, any the directory still lists, so that
// the tasks of an agent that went offline can still be read and canceled
// (a send to it is refused: start). Otherwise it writes 404.
func (g *Gateway) listed(w http.ResponseWriter, rq *request, name string, card bool) bool {
	e, ok := g.opts.Directory.Lookup(name)
	if !ok || (card && !served(e)) {
		writeError(w, rq, http.StatusNotFound, codeInvalidRequest, fmt.Sprintf("no agent %q: the gateway serves the agents the directory lists online and the well-known ones (GET %s)", name, AgentsPath))
		return false
	}
	rq.agent = e
	return true
}

// The JSON-RPC error codes the gateway writes itself (a2asrv writes the others).
const (
	codeParseError      = -32700
	codeInvalidRequest  = -32600
	codeServerError     = -32000
	codeContentType     = -32005
	codeUnauthenticated = -31401
	codeUnauthorized    = -31403
)

// writeError answers status with msg: a JSON-RPC error (code) on a
// JSON-RPC endpoint, else a google.rpc.Status-shaped object as a2asrv's
// REST errors are.
func writeError(w http.ResponseWriter, rq *request, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any
	if rq.kind == "jsonrpc" {
		body = map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"code": status, "status": http.StatusText(status), "message": msg}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// readBody reads a POST's JSON body within the listener's bound: 413 for
// a body over the bound, 400 when it could not be read, 415 for a body of
// another content type (an empty body, as REST's cancel sends, has none).
// It reports whether the body is in r.Body again, whole.
func readBody(w http.ResponseWriter, r *http.Request, rq *request) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, rq, http.StatusRequestEntityTooLarge, codeInvalidRequest,
			fmt.Sprintf("the request body is over %d bytes (http.max_body_bytes)", tooLarge.Limit))
		return nil, false
	case err != nil:
		writeError(w, rq, http.StatusBadRequest, codeParseError, "the request body could not be read: "+err.Error())
		return nil, false
	}
	if ct := r.Header.Get("Content-Type"); (len(body) > 0 || rq.kind == "jsonrpc") && !jsonType(ct) {
		writeError(w, rq, http.StatusUnsupportedMediaType, codeContentType,
			fmt.Sprintf("content type %q is not supported: send application/json", ct))
		return nil, false
	}
	again := &bodyAgain{}
	again.Reset(body)
	r.Body = again
	return body, true
}

// jsonType reports whether the content type ct is JSON's or A2A's.
func jsonType(ct string) bool {
	if ct == "application/json" || ct == "application/a2a+json" {
		return true // as clients send it: no parameters to parse
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || mt == "application/a2a+json")
}

// bodyAgain is a body read already, for a2asrv to read again.
type bodyAgain struct{ bytes.Reader }

func (*bodyAgain) Close() error { return nil }

// The A2A methods, as the metrics name them, each mapped to itself.
var methods = selfMap("SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask",
	"SubscribeToTask", "GetTaskPushNotificationConfig", "CreateTaskPushNotificationConfig",
	"ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard")

func selfMap(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}

func streaming(method string) bool {
	return method == "SendStreamingMessage" || method == "SubscribeToTask"
}

// serveJSONRPC is POST /agents/<Name>: the JSON-RPC binding (a2asrv's).
func (g *Gateway) serveJSONRPC(w http.ResponseWriter, r *http.Request, rq *request) {
	if !g.listed(w, rq, r.PathValue("name"), false) {
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, rq, http.StatusMethodNotAllowed, codeInvalidRequest, "JSON-RPC requests are POSTed")
		return
	}
	body, ok := readBody(w, r, rq)
	if !ok {
		return
	}
	method := rpcMethod(body)
	if _, known := methods[method]; known {
		rq.method = method
	}
	g.serveStreamable(w, r, rq, streaming(method), g.jsonrpc)
}

// serveREST is /agents/<Name>/rest/...: the HTTP+JSON binding (a2asrv's),
// under the agent's prefix.
func (g *Gateway) serveREST(w http.ResponseWriter, r *http.Request, rq *request) {
	if !g.listed(w, rq, r.PathValue("name"), false) {
		return
	}
	path := "/" + r.PathValue("path")
	rq.method = restMethod(r.Method, path)
	if r.Method == http.MethodPost {
		if _, ok := readBody(w, r, rq); !ok {
			return
		}
	}
	r2, u := r.WithContext(r.Context()), *r.URL // a shallow copy: only the URL changes
	u.Path, u.RawPath = path, ""
	r2.URL = &u
	g.serveStreamable(w, r2, rq, strings.HasSuffix(path, ":stream") || strings.HasSuffix(path, ":subscribe"), g.rest)
}

// restMethod names the A2A method of a REST request, for the metrics.
func restMethod(verb, path string) string {
	switch {
	case path == "/message:send":
		return "SendMessage"
	case path == "/message:stream":
		return "SendStreamingMessage"
	case path == "/tasks" && verb == http.MethodGet:
		return "ListTasks"
	case strings.HasSuffix(path, ":cancel"):
		return "CancelTask"
	case strings.HasSuffix(path, ":subscribe"):
		return "SubscribeToTask"
	case strings.Contains(path, "/pushNotificationConfigs"):
		switch {
		case verb == http.MethodPost:
			return "CreateTaskPushNotificationConfig"
		case verb == http.MethodDelete:
			return "DeleteTaskPushNotificationConfig"
		case strings.HasSuffix(path, "/pushNotificationConfigs"):
			return "ListTaskPushNotificationConfigs"
		}
		return "GetTaskPushNotificationConfig"
	case strings.HasPrefix(path, "/tasks/") && verb == http.MethodGet:
		return "GetTask"
	}
	return "rest"
}

// serveStreamable serves r with h, taking one of the gateway's stream
// slots first when it opens an event stream (503 when none is free).
func (g *Gateway) serveStreamable(w http.ResponseWriter, r *http.Request, rq *request, stream bool, h http.Handler) {
	if stream {
		if !g.streams.take() {
			g.metrics.refused("streams")
			w.Header().Set("Retry-After", "1")
			writeError(w, rq, http.StatusServiceUnavailable, codeServerError,
				fmt.Sprintf("too many event streams are open on this gateway (gateway.max_streams %d): retry, or ask for the task with GetTask", g.opts.MaxStreams))
			return
		}
		g.metrics.streams.Inc()
		defer func() { g.streams.release(); g.metrics.streams.Dec() }()
	}
	h.ServeHTTP(w, r)
}
