// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package execbridge makes a bus agent of a child process written in any
// language: the process reads and writes NDJSON frames on its stdin and
// stdout (docs/ndjson.md), the bridge turns the agent's tasks into
// task.request frames and its frames into progress, results, typed errors
// and calls to other agents. `a2abus serve --exec 'CMD ARGS'` runs one
// (Serve).
//
// Requests are multiplexed on the one process, as many at once as the
// agent's concurrency. A line that is not JSON, of an unknown type or for
// an unknown request is logged as a protocol violation and ignored. A
// process that exits fails the tasks it was running with EXECUTION_FAILED
// and is started again after a backoff; tasks that arrive meanwhile wait
// for it within their deadline. Its stderr goes to the log line by line.
//
// Life cycle: New → Start (the process runs, its card is known) → build
// the agent with Card and Register its skills → Run beside the agent →
// close the agent, then the bridge (Close stops the process).
package execbridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Errors of the bridge.
var (
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("execbridge: invalid options")
	// ErrNotStarted: Card, Register or Run was called before Start succeeded.
	ErrNotStarted = errors.New("execbridge: not started")
	// ErrCrashLoop: the process kept exiting (MaxCrashes times in a row) and is not restarted any more.
	ErrCrashLoop = errors.New("execbridge: agent process keeps exiting")
	// ErrNoCard: the process sent no usable agent.card frame.
	ErrNoCard = errors.New("execbridge: no agent card from the process")
	// ErrClosed: the bridge was closed.
	ErrClosed = errors.New("execbridge: closed")
)

// Options configures a Bridge. Zero durations and sizes take the defaults.
type Options struct {
	// Command is the command line, split as a shell would (SplitCommand).
	// Required unless Argv is given.
	Command string
	// Argv is the program and its arguments as they are, not split again
	// (`serve --exec -- CMD ARGS`). Give it or Command, not both.
	Argv []string
	// Dir is the process's working directory; "" is the host's.
	Dir string
	// Env is the process's environment; nil is the host's.
	Env []string
	// Card, when set, is the agent's card (--card); otherwise the process
	// must send one as its first frame, within CardTimeout.
	Card *Card
	// Name, when set, is the agent's bus name instead of the card's.
	Name string
	// Concurrency is told to the process in the hello frame: how many
	// requests it may be sent at once (agent.concurrency); default 4.
	Concurrency int
	// Logger receives the process's stderr, protocol violations and restarts.
	Logger *zap.Logger
	// CardTimeout bounds the wait for the card (10s).
	CardTimeout time.Duration
	// CancelGrace is how long a cancelled task waits for the process to
	// answer its task.cancel before the task ends anyway (2s).
	CancelGrace time.Duration
	// StopTimeout bounds stopping the process: its stdin closes, SIGTERM at
	// half of it, SIGKILL at the end (10s).
	StopTimeout time.Duration
	// WriteTimeout is how long input sent to the process (a frame being
	// written, or on Linux one left unread in the pipe; the hello frame
	// alone excepted) may wait for it to be read; past it the process is
	// killed (10s).
	WriteTimeout time.Duration
	// DrainTimeout is how long, in all, the output pipes of an exited process
	// are read on: a process it started outside its process group may hold
	// them open (1s).
	DrainTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before a restart, doubling
	// from one to the other on consecutive exits, with jitter (100ms, 10s).
	MinBackoff, MaxBackoff time.Duration
	// MaxCrashes is how many exits in a row (without StableAfter of
	// running between them) end Run with ErrCrashLoop (10); negative never does.
	MaxCrashes int
	// StableAfter is how long a process must run for its exit not to count
	// against MaxCrashes (1m).
	StableAfter time.Duration
	// MaxFrameBytes is the longest line read from the process (4 MiB); a
	// longer one that answers a request ends it (RESULT_TOO_LARGE for a
	// task.result), one that carries the card fails Start (ErrBadCard).
	MaxFrameBytes int
	// MaxStderrLine cuts longer stderr lines (4 KiB).
	MaxStderrLine int
	// StderrLinesPerSecond bounds the stderr lines logged (50); the rest are counted.
	StderrLinesPerSecond int
	// ViolationsPerSecond bounds the protocol violations logged (10); the rest are counted.
	ViolationsPerSecond int
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	def(&o.CardTimeout, 10*time.Second)
	def(&o.CancelGrace, 2*time.Second)
	def(&o.StopTimeout, 10*time.Second)
	def(&o.WriteTimeout, 10*time.Second)
	def(&o.DrainTimeout, time.Second)
	def(&o.MinBackoff, 100*time.Millisecond)
	def(&o.MaxBackoff, 10*time.Second)
	def(&o.StableAfter, time.Minute)
	defInt(&o.Concurrency, agent.DefaultConcurrency)
	defInt(&o.MaxCrashes, 10)
	defInt(&o.MaxFrameBytes, a2a.DefaultMaxBodyBytes)
	defInt(&o.MaxStderrLine, 4<<10)
	defInt(&o.StderrLinesPerSecond, 50)
	defInt(&o.ViolationsPerSecond, 10)
	return o
}

// Bridge runs the agent process and serves its skills.
type Bridge struct {
	opts   Options
	argv   []string
	log    *zap.Logger
	card   *Card
	caller *caller.Caller // for invoke frames; nil refuses them

	mu      sync.Mutex
	cur     *child        // the live process; nil while it restarts
	ready   chan struct{} // closed while cur is set
	down    chan struct{} // closed when no process will run again
	downErr error

	seq  atomic.Uint64
	vmu  sync.Mutex
	vlim *limiter
	life *component.Runner // Run once; Close stops the process, bounded
}

// New checks opts and splits the command line; nothing runs yet. A bad
// command line is a *CommandError wrapping ErrBadCommand.
func New(opts Options) (*Bridge, error) {
	opts = opts.withDefaults()
	argv, err := opts.argv()
	if err != nil {
		return nil, err
	}
	opts.Command = QuoteCommand(argv) // what logs and errors name
	if opts.Name != "" {
		if err := a2a.ValidateAgentName(opts.Name); err != nil {
			return nil, fmt.Errorf("%w: name: %w", ErrInvalidOptions, err)
		}
	}
	if opts.Card != nil {
		if err := checkCard(opts.Card); err != nil {
			return nil, err
		}
	}
	if opts.Concurrency < 1 || opts.MaxFrameBytes < 1 || opts.MaxStderrLine < 1 || opts.MinBackoff < 0 || opts.MaxBackoff < opts.MinBackoff {
		return nil, fmt.Errorf("%w: concurrency, sizes and backoffs must be positive, MaxBackoff at least MinBackoff", ErrInvalidOptions)
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Bridge{
		opts: opts, argv: argv, log: log.With(zap.String("command", opts.Command)),
		ready: make(chan struct{}), down: make(chan struct{}),
		life: component.New(ErrClosed, fmt.Errorf("%w: Run called twice", ErrInvalidOptions)), vlim: newLimiter(opts.ViolationsPerSecond),
	}, nil
}

// Start starts the process and, unless Options.Card is set, waits for its
// agent.card frame (CardTimeout). A process that cannot start, exits first,
// sends no card or a bad one is an error (ErrNoCard, ErrBadCard, ErrVersion),
// and is stopped.
func (b *Bridge) Start(ctx context.Context) error {
	b.mu.Lock()
	started := b.cur != nil || b.card != nil
	b.mu.Unlock()
	if started {
		return fmt.Errorf("%w: Start called twice", ErrInvalidOptions)
	}
	c, card, err := b.launch(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.card = card
	b.cur = c
	close(b.ready)
	b.log.Info("agent process started", zap.Int("pid", c.pid), zap.String("agent", b.name()))
	return nil
}

// launch starts a process and gets its card (Options.Card when set).
func (b *Bridge) launch(ctx context.Context) (*child, *Card, error) {
	c, err := b.startChild()
	if err != nil {
		return nil, nil, err
	}
	if b.opts.Card != nil {
		return c, b.opts.Card, nil
	}
	card, err := b.awaitCard(ctx, c)
	if err != nil {
		c.stop(b.opts.StopTimeout)
		return nil, nil, err
	}
	return c, card, nil
}

// awaitCard waits for c's agent.card frame and checks it.
func (b *Bridge) awaitCard(ctx context.Context, c *child) (*Card, error) {
	timer := time.NewTimer(b.opts.CardTimeout)
	defer timer.Stop()
	select {
	case l := <-c.cards:
		if l.err != nil {
			return nil, l.err
		}
		f := l.f
		if f.Version > Version {
			return nil, fmt.Errorf("%w: the process speaks version %d, this host %d", ErrVersion, f.Version, Version)
		}
		if len(f.Card) == 0 {
			return nil, fmt.Errorf("%w: its agent.card frame has no \"card\" field", ErrBadCard)
		}
		return ParseCard(f.Card)
	case <-c.done:
		return nil, fmt.Errorf("%w: %s before sending it", ErrNoCard, c.describe())
	case <-timer.C:
		return nil, fmt.Errorf("%w: none within %s (its first line must be an agent.card frame, or give --card)", ErrNoCard, b.opts.CardTimeout)
	case <-ctx.Done():
		return nil, fmt.Errorf("execbridge: wait for the agent card: %w", ctx.Err())
	case <-b.closing():
		return nil, ErrClosed
	}
}

// closing is closed once Close was called.
func (b *Bridge) closing() <-chan struct{} { return b.life.ClosingContext().Done() }

// name is the agent's bus name.
func (b *Bridge) name() string {
	if b.opts.Name != "" {
		return b.opts.Name
	}
	if b.card != nil {
		return b.card.AgentName
	}
	return ""
}

// Card is the agent's card (Options.Name as its name when set), for
// node.Node.Agent; its input schemas are declared by Register.
func (b *Bridge) Card() (a2a.AgentCard, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.card == nil {
		return a2a.AgentCard{}, ErrNotStarted
	}
	card := *b.card.Card()
	card.Name = b.name()
	return card, nil
}

// Register registers a handler on a for every skill of the card, with its
// input schema; c (may be nil, refusing them) makes the process's invoke
// frames.
func (b *Bridge) Register(a *agent.Agent, c *caller.Caller) error {
	b.mu.Lock()
	card := b.card
	b.mu.Unlock()
	if card == nil {
		return ErrNotStarted
	}
	b.caller = c
	for _, s := range card.Skills {
		var opts []agent.SkillOption
		if raw, ok := card.InputSchemas[s.ID]; ok {
			opts = append(opts, agent.WithInputSchema(raw))
		}
		if err := a.Handle(s.ID, b.handle, opts...); err != nil {
			return fmt.Errorf("execbridge: register skill %q: %w", s.ID, err)
		}
	}
	return nil
}

// Run watches the process until ctx is done or Close is called, then stops
// it (StopTimeout) and returns nil. A process that exits is started again
// after a backoff (MinBackoff doubling to MaxBackoff); MaxCrashes exits in a
// row end Run with ErrCrashLoop, and the tasks waiting for a process fail.
func (b *Bridge) Run(ctx context.Context) error {
	ctx, _, finish, err := b.life.Start(ctx, nil)
	if errors.Is(err, ErrClosed) {
		return nil // closed before Run began: Close stopped the process
	}
	if err != nil {
		return err
	}
	defer finish()
	b.mu.Lock()
	c := b.cur
	b.mu.Unlock()
	if c == nil {
		return ErrNotStarted
	}
	crashes := 0
	for {
		select {
		case <-c.done:
		case <-ctx.Done(): // stopped, or closed
			b.shutdown(c, nil)
			return nil
		}
		b.mu.Lock()
		b.cur, b.ready = nil, make(chan struct{})
		b.mu.Unlock()
		if time.Since(c.started) >= b.opts.StableAfter {
			crashes = 0
		}
		reason := c.describe()
		var err error
		if c, err = b.restart(ctx, &crashes, reason); c == nil {
			b.shutdown(nil, err)
			if err != nil {
				return err
			}
			return nil
		}
	}
}

// restart starts the process again after a backoff, as many times as it
// takes or until MaxCrashes. It returns nil (and the error that ends Run,
// nil for a stop) when it gives up.
func (b *Bridge) restart(ctx context.Context, crashes *int, reason string) (*child, error) {
	for {
		*crashes++
		if b.opts.MaxCrashes > 0 && *crashes > b.opts.MaxCrashes {
			b.log.Error("agent process keeps exiting: not restarting it", zap.Int("exits_in_a_row", *crashes-1), zap.String("last", reason))
			return nil, fmt.Errorf("%w: %d times in a row; last: %s", ErrCrashLoop, *crashes-1, reason)
		}
		delay := b.backoff(*crashes)
		b.log.Warn("agent process exited: restarting it", zap.String("reason", reason), zap.Int("attempt", *crashes), zap.Duration("after", delay))
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, nil
		}
		c, card, err := b.launch(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrClosed) {
				return nil, nil
			}
			reason = err.Error()
			continue
		}
		if b.opts.Card == nil && !sameSkills(card, b.card) {
			b.log.Warn("restarted agent process sent a different card: the agent keeps serving the first one's skills",
				zap.Int("pid", c.pid), zap.String("agent", card.AgentName))
		}
		b.mu.Lock()
		b.cur = c
		close(b.ready)
		b.mu.Unlock()
		b.log.Info("agent process restarted", zap.Int("pid", c.pid), zap.Int("attempt", *crashes))
		return c, nil
	}
}

// backoff is the wait before the n-th restart in a row (from 1).
func (b *Bridge) backoff(n int) time.Duration {
	return backoff.Policy{Min: b.opts.MinBackoff, Max: b.opts.MaxBackoff}.Delay(n - 1)
}

// shutdown stops c (when set) and marks the bridge down with err (nil: closed).
func (b *Bridge) shutdown(c *child, err error) {
	b.mu.Lock()
	b.cur = nil
	select {
	case <-b.down:
	default:
		b.downErr = err
		close(b.down)
	}
	b.mu.Unlock()
	if c != nil {
		c.stop(b.opts.StopTimeout)
		b.log.Info("agent process stopped", zap.Int("pid", c.pid))
	}
}

// Close stops Run and the process, within StopTimeout and a margin.
// Idempotent. Close the agent first: its tasks need the process.
func (b *Bridge) Close() error {
	err := b.life.Close("execbridge: the agent process", b.opts.StopTimeout+b.opts.DrainTimeout+2*time.Second)
	if !b.life.Started() { // started but never run: nobody else stops it
		b.mu.Lock()
		c := b.cur
		b.mu.Unlock()
		b.shutdown(c, nil)
	}
	return err
}

// live waits for a running process (bounded by ctx) and tracks p in it.
func (b *Bridge) live(ctx context.Context, p *pending) (*child, error) {
	for {
		b.mu.Lock()
		c, ready, down, downErr := b.cur, b.ready, b.down, b.downErr
		b.mu.Unlock()
		if c != nil {
			if c.lookup(p.id, false) != nil { // the same task twice at once (a redelivery)
				p.id = fmt.Sprintf("%s#%d", p.id, b.seq.Add(1))
			}
			if c.track(p) {
				return c, nil
			}
			ready = nil // c is gone: wait for Run to replace it
		}
		select {
		case <-down:
			if downErr == nil {
				downErr = ErrClosed
			}
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "the agent process is not running: %v", downErr)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ready:
		case <-time.After(20 * time.Millisecond): // c was gone but not yet replaced
		}
	}
}

// violation logs a protocol violation of process pid, within ViolationsPerSecond.
func (b *Bridge) violation(pid int, what string, f *Frame) {
	b.vmu.Lock()
	ok, dropped := b.vlim.allow()
	b.vmu.Unlock()
	if !ok {
		return
	}
	fields := []zap.Field{zap.Int("pid", pid), zap.String("what", what)}
	if f != nil {
		fields = append(fields, zap.String("type", f.Type), zap.String("request_id", f.RequestID))
	}
	if dropped > 0 {
		fields = append(fields, zap.Int("dropped_before", dropped))
	}
	b.log.Warn("protocol violation: line ignored", fields...)
}

// sameSkills reports whether two cards list the same skill ids in order.
func sameSkills(a, b *Card) bool {
	if a == nil || b == nil || len(a.Skills) != len(b.Skills) {
		return false
	}
	for i := range a.Skills {
		if a.Skills[i].ID != b.Skills[i].ID {
			return false
		}
	}
	return true
}
