// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Defaults of Options.
const (
	// DefaultPageSize is how many rows a page of agents, turns or tasks shows.
	DefaultPageSize = 100
	// DefaultPollInterval is how often a live session view looks for changed tasks.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMaxDeadLetters is how many dead letters the dead-letter page reads.
	DefaultMaxDeadLetters = 100
	// MinTokenBytes is the shortest token accepted.
	MinTokenBytes = 16
)

// ErrInvalidOptions: the options are incomplete or unsafe.
var ErrInvalidOptions = errors.New("console: invalid options")

// QueueInspector reads a queue's ready messages and consumers without
// creating it (*rabbitmq.Bus); nil leaves the queue columns empty.
type QueueInspector interface {
	Inspect(ctx context.Context, queue string) (rabbitmq.QueueStats, error)
}

// Options configure a Console.
type Options struct {
	// Directory lists the agents. Required.
	Directory *directory.Directory
	// Memory is the working memory sessions, results, workflows and
	// conversations are read from. Required.
	Memory memory.Memory
	// Queues, when set, gives each agent's task queue depth and consumers.
	Queues QueueInspector
	// DeadLetters, when set, reads the dead-letter queue.
	DeadLetters DeadLetterReader
	// Guard, when set, shows this process's circuits and calls in flight.
	Guard *guard.Guard
	// Ready, when set, is the readiness check shown on the health page.
	Ready func(ctx context.Context) error
	// Settings are the limits in force shown on the health page (name → value).
	Settings [][2]string
	// Callers are the caller names whose unfinished tasks a session view
	// shows before they end (besides the callers of the session's history).
	Callers []string
	// Actions enables the actions on dead letters (republish, drop;
	// DeadLetters must be a DeadLetterActor) and on orchestrated
	// conversations (pause, resume, stop, take over, approve; Controls must
	// be set). It needs a Token: an action is taken by someone
	// authenticated, and logged.
	Actions bool
	// Controls, with Actions, is the bus a conversation's controls are
	// announced on to the process that drives it (converse.Send).
	Controls bus.Publisher
	// Token, when set, is required of every request (bearer header, or
	// ?token= once, which sets a cookie). Listen refuses an address other
	// than loopback without one.
	Token string
	// PageSize bounds the rows of one page; default DefaultPageSize.
	PageSize int
	// PollInterval is how often a live view looks for changes; default DefaultPollInterval.
	PollInterval time.Duration
	// MaxDeadLetters bounds the dead letters read; default DefaultMaxDeadLetters.
	MaxDeadLetters int
	// Limits bound the listener; a zero field takes its default.
	Limits httpserve.Limits
	// Logger receives the console's log lines; nil means none.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Console serves the web console. Build it with New, then Listen and Run
// it (it is a host part), or serve Handler yourself.
type Console struct {
	opts    Options
	log     *zap.Logger
	pages   map[string]*template.Template
	handler http.Handler

	ctx    context.Context // ends when the console closes: live views end
	cancel context.CancelFunc

	mu   sync.Mutex
	srv  *httpserve.Server
	ln   net.Listener
	once sync.Once
	err  error
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New checks o and builds a console.
func New(o Options) (*Console, error) {
	switch {
	case o.Directory == nil || o.Memory == nil:
		return nil, fmt.Errorf("%w: Directory and Memory are required", ErrInvalidOptions)
	case o.Token != "" && len(o.Token) < MinTokenBytes:
		return nil, fmt.Errorf("%w: the token must be at least %d bytes, got %d", ErrInvalidOptions, MinTokenBytes, len(o.Token))
	case o.Actions && o.Token == "":
		return nil, fmt.Errorf("%w: actions need a token (who acts must be authenticated)", ErrInvalidOptions)
	case o.PageSize < 0 || o.PollInterval < 0 || o.MaxDeadLetters < 0:
		return nil, fmt.Errorf("%w: PageSize, PollInterval and MaxDeadLetters must not be negative", ErrInvalidOptions)
	}
	component.Default(&o.PageSize, DefaultPageSize)
	component.Default(&o.PollInterval, DefaultPollInterval)
	component.Default(&o.MaxDeadLetters, DefaultMaxDeadLetters)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{opts: o, log: o.Logger, pages: pages}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.handler = c.routes()
	return c, nil
}

// routes maps the paths to the pages; every answer carries the headers
// that keep a page from running anything but the console's own script.
func (c *Console) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/agents", http.StatusSeeOther) })
	mux.HandleFunc("GET /agents", c.agentsPage)
	mux.HandleFunc("GET /agents/{name}", c.agentPage)
	mux.HandleFunc("GET /sessions", c.sessionsPage)
	mux.HandleFunc("GET /sessions/{id}", c.sessionPage)
	mux.HandleFunc("GET /sessions/{id}/events", c.sessionEvents)
	mux.HandleFunc("GET /sessions/{id}/tasks/{task}", c.taskPage)
	mux.HandleFunc("GET /workflows", c.workflowsPage)
	mux.HandleFunc("GET /deadletters", c.deadLettersPage)
	mux.HandleFunc("GET /health", c.healthPage)
	mux.HandleFunc("POST /deadletters/{id}/{action}", c.deadLetterAction)
	mux.HandleFunc("POST /conversations/{id}/{action}", c.conversationAction)
	var h http.Handler = mux
	if c.opts.Token != "" {
		h = tokenAuth(h, c.opts.Token)
	}
	return secureHeaders(h)
}

// secureHeaders sets the headers of every answer: a policy that runs only
// the console's own script and style, and no framing or sniffing.
func secureHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// Handler is the console's HTTP handler, for serving it yourself.
func (c *Console) Handler() http.Handler { return c.handler }

// ErrNotLoopback: Listen was given an address other than loopback and no token.
var ErrNotLoopback = errors.New("console: an address other than loopback needs a token")

// Listen binds addr (host:port; port 0 picks one) and returns the bound
// address. An address that is not loopback needs Options.Token.
func (c *Console) Listen(addr string) (net.Addr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln != nil {
		return nil, errors.New("console: Listen called twice")
	}
	l, err := c.opts.Limits.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	ln, err := httpserve.Listen(addr, l.MaxConnections)
	if err != nil {
		return nil, fmt.Errorf("console: listen on %s: %w", addr, err)
	}
	if c.opts.Token == "" && !httpserve.IsLoopback(ln.Addr()) {
		_ = ln.Close()
		return nil, fmt.Errorf("%w: %s (set a token, or listen on 127.0.0.1)", ErrNotLoopback, addr)
	}
	c.ln = ln
	return ln.Addr(), nil
}

// Run serves until ctx ends or Close is called; Listen first.
func (c *Console) Run(ctx context.Context) error {
	c.mu.Lock()
	ln := c.ln
	if ln == nil {
		c.mu.Unlock()
		return errors.New("console: Run before Listen")
	}
	l, _ := c.opts.Limits.WithDefaults()
	srv, err := httpserve.Start(ln, c.handler, l, zap.NewStdLog(c.log))
	if err != nil {
		c.mu.Unlock()
		return fmt.Errorf("console: %w", err)
	}
	c.srv = srv
	c.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-c.ctx.Done():
	}
	return c.Close()
}

// Close stops the live views and the listener; idempotent and bounded.
func (c *Console) Close() error {
	c.once.Do(func() {
		c.cancel()
		c.mu.Lock()
		srv, ln := c.srv, c.ln
		c.mu.Unlock()
		switch {
		case srv != nil:
			c.err = srv.Close()
		case ln != nil:
			c.err = ln.Close()
		}
	})
	return c.err
}
