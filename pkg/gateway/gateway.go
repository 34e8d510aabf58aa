// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// Defaults of Options.
const (
	// DefaultRate is how many requests per second one principal may make.
	DefaultRate = 100.0
	// DefaultBurst is how many requests one principal may make at once after a quiet spell.
	DefaultBurst = 200
	// DefaultMaxStreams bounds the event streams open at once on one gateway.
	DefaultMaxStreams = 2000
	// DefaultStreamKeepAlive is how often an idle event stream gets a comment line.
	DefaultStreamKeepAlive = 15 * time.Second
	// DefaultCancelWait is how long CancelTask waits for the task's final state.
	DefaultCancelWait = 10 * time.Second
	// DefaultMaxListedTasks is how many of its latest tasks ListTasks keeps for a principal.
	DefaultMaxListedTasks = 1000
)

// Options configure a Gateway.
type Options struct {
	// Callers are the callers the gateway acts as, one per caller name a
	// principal maps to; they run elsewhere (on the host), the gateway only
	// uses them. Required.
	Callers []*caller.Caller
	// Directory lists the agents whose cards are served. Required.
	Directory *directory.Directory
	// Memory keeps the principals' task lists and push configs. Required.
	Memory memory.Memory
	// Keys are the API keys and static bearer tokens, each naming one of
	// the Callers.
	Keys []Key
	// JWT, when set, also accepts OIDC JWTs whose claim names one of the Callers.
	JWT *JWTOptions
	// PublicURL is the URL clients reach the gateway at (behind a proxy or
	// an ingress), used in the cards; default the scheme and Host of each
	// request.
	PublicURL string
	// PublicCards serves the cards and the catalog without authentication.
	PublicCards bool
	// Rate and Burst bound each principal's requests (429 beyond, with
	// Retry-After); default DefaultRate and DefaultBurst. A negative Rate
	// means unlimited.
	Rate  float64
	Burst int
	// MaxStreams bounds the event streams open at once (503 beyond);
	// default DefaultMaxStreams.
	MaxStreams int
	// StreamKeepAlive is how often an idle stream gets a keep-alive
	// comment; default DefaultStreamKeepAlive.
	StreamKeepAlive time.Duration
	// CancelWait bounds how long CancelTask waits for the task's final
	// state; default DefaultCancelWait.
	CancelWait time.Duration
	// MaxListedTasks is how many of its latest tasks a principal's list
	// keeps; default DefaultMaxListedTasks.
	MaxListedTasks int
	// Push configures push notifications; with no Allow entry they are off.
	Push PushOptions
	// Limits bound the listener (Listen); a zero field takes its default.
	Limits httpserve.Limits
	// Ready answers /readyz (nil: always ready).
	Ready func(ctx context.Context) error
	// Registerer, when set, gets the gateway's metrics (ops.Ops.Registry).
	Registerer *prom.Registry
	// Logger receives the gateway's log lines; nil means none.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrInvalidOptions: the options are incomplete or out of range.
var ErrInvalidOptions = errors.New("gateway: invalid options")

// Gateway serves the A2A protocol for the agents of a directory, mapping
// it onto the bus. Build it with New, then Listen and Run it (it is a
// host part), or serve Handler yourself.
type Gateway struct {
	opts    Options
	log     *zap.Logger
	slog    *slog.Logger              // a2a-go's lines, into log (logging.go)
	callers map[string]*caller.Caller // by lower-case name
	keys    keyring
	jwt     *jwtVerifier
	rates   *principalRates
	streams *streamSlots
	tasks   *taskIndex
	push    *pusher
	metrics *metrics
	jsonrpc http.Handler
	rest    http.Handler
	handler http.Handler

	ctx    context.Context // ends when the gateway closes: streams end, pushes stop
	cancel context.CancelFunc

	mu   sync.Mutex
	srv  *httpserve.Server
	ln   net.Listener
	once sync.Once
	err  error
}

// New checks o and builds a gateway.
func New(o Options) (*Gateway, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	g := &Gateway{opts: o, log: o.Logger, slog: slog.New(zapHandler{log: o.Logger}), callers: map[string]*caller.Caller{}}
	for _, c := range o.Callers {
		if c == nil {
			return nil, fmt.Errorf("%w: a nil caller", ErrInvalidOptions)
		}
		g.callers[strings.ToLower(c.Name())] = c
	}
	keys, err := newKeyring(o.Keys)
	if err != nil {
		return nil, err
	}
	for _, k := range o.Keys {
		if g.callerOf(k.Name) == nil {
			return nil, fmt.Errorf("%w: a key names caller %q, which is not one of the gateway's callers", ErrInvalidOptions, k.Name)
		}
	}
	g.keys = keys
	if o.JWT != nil {
		if g.jwt, err = newJWTVerifier(*o.JWT, o.Now); err != nil {
			return nil, err
		}
	}
	if len(o.Keys) == 0 && o.JWT == nil {
		return nil, fmt.Errorf("%w: no keys and no JWT settings: every request must be authenticated", ErrInvalidOptions)
	}
	if g.push, err = newPusher(g, o.Push); err != nil {
		return nil, err
	}
	if g.metrics, err = newMetrics(o.Registerer); err != nil {
		return nil, err
	}
	g.rates = newPrincipalRates(o.Rate, o.Burst, o.Now)
	g.streams = &streamSlots{max: int64(o.MaxStreams)}
	g.tasks = newTaskIndex(o.Memory, o.MaxListedTasks, o.Now, func(err error) { g.log.Warn("gateway: tasks not listed", zap.Error(err)) })
	g.ctx, g.cancel = context.WithCancel(context.Background())
	h := &handler{g: g}
	keepAlive := a2asrv.WithTransportKeepAlive(o.StreamKeepAlive)
	panics := a2asrv.WithTransportPanicHandler(g.recovered)
	g.jsonrpc = a2asrv.NewJSONRPCHandler(h, keepAlive, panics)
	g.rest = a2asrv.NewRESTHandler(h, keepAlive, panics)
	g.handler = g.routes()
	return g, nil
}

func (o *Options) normalize() error {
	switch {
	case len(o.Callers) == 0:
		return fmt.Errorf("%w: no callers to act as", ErrInvalidOptions)
	case o.Directory == nil || o.Memory == nil:
		return fmt.Errorf("%w: Directory and Memory are required", ErrInvalidOptions)
	case o.Rate == 0 && o.Burst < 0, o.Burst < 0, o.MaxStreams < 0, o.MaxListedTasks < 0, o.CancelWait < 0, o.StreamKeepAlive < 0:
		return fmt.Errorf("%w: Burst, MaxStreams, MaxListedTasks, CancelWait and StreamKeepAlive must not be negative", ErrInvalidOptions)
	}
	if o.PublicURL != "" {
		if !strings.HasPrefix(o.PublicURL, "http://") && !strings.HasPrefix(o.PublicURL, "https://") {
			return fmt.Errorf("%w: PublicURL %q must start with http:// or https://", ErrInvalidOptions, o.PublicURL)
		}
		o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	}
	if o.Rate == 0 {
		o.Rate = DefaultRate
	}
	if o.Burst == 0 {
		o.Burst = DefaultBurst
	}
	if o.MaxStreams == 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.StreamKeepAlive == 0 {
		o.StreamKeepAlive = DefaultStreamKeepAlive
	}
	if o.CancelWait == 0 {
		o.CancelWait = DefaultCancelWait
	}
	if o.MaxListedTasks == 0 {
		o.MaxListedTasks = DefaultMaxListedTasks
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// callerOf is the caller called name (ignoring case), or nil.
func (g *Gateway) callerOf(name string) *caller.Caller { return g.callers[strings.ToLower(name)] }

// Handler serves the gateway's routes, without the listener's bounds
// (Listen serves it within them; serve it with internal/httpserve).
func (g *Gateway) Handler() http.Handler { return g.handler }

// Listen binds addr (port 0 picks one) within Options.Limits; Run serves it.
func (g *Gateway) Listen(addr string) (net.Addr, error) {
	limits, err := g.opts.Limits.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	ln, err := httpserve.Listen(addr, limits.MaxConnections)
	if err != nil {
		return nil, fmt.Errorf("gateway: listen on %s: %w", addr, err)
	}
	srv, err := httpserve.Start(ln, g.handler, limits, zap.NewStdLog(g.log))
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.mu.Lock()
	g.srv, g.ln = srv, ln
	g.mu.Unlock()
	return ln.Addr(), nil
}

// Run serves until ctx ends (then it closes the gateway) or the listener
// fails. Listen must have been called.
func (g *Gateway) Run(ctx context.Context) error {
	g.mu.Lock()
	srv := g.srv
	g.mu.Unlock()
	if srv == nil {
		return errors.New("gateway: Run before Listen")
	}
	select {
	case <-srv.Done():
		_ = g.Close()
		return fmt.Errorf("gateway: serve: %w", srv.Err())
	case <-ctx.Done():
	}
	return g.Close()
}

// Close ends the streams (their clients resubscribe to another replica),
// stops the listener (requests in progress get httpserve.ShutdownTimeout)
// and the pushes still waiting for their tasks. Tasks go on: their
// outcomes are stored for any replica. Idempotent.
func (g *Gateway) Close() error {
	g.once.Do(func() {
		g.cancel()
		g.mu.Lock()
		srv := g.srv
		g.mu.Unlock()
		g.err = srv.Close()
		g.push.wait()
		g.tasks.sync()
	})
	return g.err
}

// recovered turns a panic of a transport into an internal error.
func (g *Gateway) recovered(r any) error {
	g.log.Error("gateway: a request panicked", zap.Any("panic", r), zap.Stack("stack"))
	return errInternal("the request failed inside the gateway")
}
