// Package caller is the calling side of a2abus: Invoke publishes a task and
// returns its id and memory key at once; Call waits for the outcome with the
// status updates as they come, whichever replica consumed the response. The
// response handler stores every result in working memory with a TTL, injects
// one notification turn into the session's conversation and only then acks;
// a deadline sweeper turns silence into a TIMEOUT and sends a cancel.
//
// Task state lives in working memory (Redis), so every replica of a caller
// can handle its responses and a restarted caller loses nothing.
//
// Shutdown order: stop consuming responses (in-flight ones finish or are
// requeued) → stop the sweeper → stop the event consumer → wake waiters with
// ErrClosed. The bus and memory are the owner's to close.
package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/lifecycle"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Defaults of Options.
const (
	DefaultResultTTL      = 60 * time.Minute
	DefaultTimeout        = 30 * time.Second
	DefaultMaxTimeout     = 5 * time.Minute
	DefaultSweepInterval  = time.Second
	DefaultConcurrency    = 8
	DefaultPollInterval   = 500 * time.Millisecond
	DefaultMemoryRetryMax = 2 * time.Second
)

// Options configures a Caller.
type Options struct {
	// Name is the caller's agent name: responses come to agent.response.<Name>.
	Name string
	// Bus carries requests and responses. Required.
	Bus bus.Bus
	// Memory holds task records, results and conversations. Required.
	Memory memory.Memory
	// Resolver, when set (the agent directory), vets every target before it is
	// invoked: an unknown agent or a skill it lacks is refused at once with a
	// typed error, and the target's canonical spelling is used.
	Resolver Resolver
	// Guard, when set, admits every call before it is published (policy,
	// calls in flight, rate, circuit breaker; see pkg/guard) and is told its outcome.
	Guard *guard.Guard
	// ResultTTL is how long results stay in working memory; default 60m.
	ResultTTL time.Duration
	// DefaultTimeout applies to requests without one (30s); MaxTimeout clamps all (5m).
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	// SweepInterval is how often overdue tasks are looked for; default 1s.
	SweepInterval time.Duration
	// MaxDepth is the longest call chain (origin included) a call may
	// extend; default a2a.DefaultMaxDepth.
	MaxDepth int
	// Concurrency is how many responses are handled at once; default 8.
	Concurrency int
	// InstanceID names this process; default a random UUID.
	InstanceID string
	// Codec encodes and decodes bus messages.
	Codec a2a.Codec
	// Logger receives one line per task outcome; nil means no logging.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o *Options) normalize() error {
	if err := a2a.ValidateAgentName(o.Name); err != nil {
		return fmt.Errorf("%w: name: %w", ErrInvalidOptions, err)
	}
	if o.Bus == nil || o.Memory == nil {
		return fmt.Errorf("%w: Bus and Memory are required", ErrInvalidOptions)
	}
	lifecycle.Default(&o.ResultTTL, DefaultResultTTL)
	lifecycle.Default(&o.DefaultTimeout, DefaultTimeout)
	lifecycle.Default(&o.MaxTimeout, DefaultMaxTimeout)
	lifecycle.Default(&o.SweepInterval, DefaultSweepInterval)
	if o.DefaultTimeout > o.MaxTimeout {
		o.DefaultTimeout = o.MaxTimeout
	}
	lifecycle.Default(&o.Concurrency, DefaultConcurrency)
	lifecycle.Default(&o.MaxDepth, a2a.DefaultMaxDepth)
	lifecycle.Defaults(&o.InstanceID, &o.Logger, &o.Now)
	if err := a2a.ValidateInstanceID(o.InstanceID); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return nil
}

// Resolver resolves an agent name and skill to the agent's canonical name,
// or refuses them with an *a2a.Error (AGENT_NOT_FOUND, SKILL_NOT_SUPPORTED).
type Resolver interface {
	Resolve(agent, skill string) (string, error)
}

// Caller invokes agents on behalf of one caller name.
type Caller struct {
	opts    Options
	log     *zap.Logger
	waiters *waiters
	local   *localTasks // records of the tasks this process invoked

	tickets guardTickets // guard tickets of the tasks this process invoked (guard.go)

	declMu   sync.Mutex
	declared map[string]bool // queues this process has declared

	life *lifecycle.Runner // Run once; Close wakes waiters through life.Closing()
}

// New validates opts and returns a caller. Call Run to handle responses.
func New(opts Options) (*Caller, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	return &Caller{
		opts:     opts,
		log:      opts.Logger.With(zap.String("caller", opts.Name), zap.String("instance", opts.InstanceID)),
		waiters:  newWaiters(),
		local:    newLocalTasks(),
		declared: map[string]bool{},
		life:     lifecycle.New(),
	}, nil
}

// Name is the caller's agent name.
func (c *Caller) Name() string { return c.opts.Name }

// Run consumes the caller's responses, runs the deadline sweeper and listens
// for the events of the other replicas until ctx is done or Close is called.
func (c *Caller) Run(ctx context.Context) error {
	ctx, stop, finish, err := c.life.Start(ctx, nil)
	switch {
	case errors.Is(err, lifecycle.ErrClosed):
		return ErrClosed
	case err != nil:
		return ErrRunning
	}
	defer finish()

	respSpec, err := bus.ResponseQueue(c.opts.Name)
	if err != nil {
		return err
	}
	eventKey, err := a2a.EventRoutingKey(c.opts.Name)
	if err != nil {
		return err
	}
	eventSpec, err := bus.InstanceQueue(c.opts.Name, c.opts.InstanceID, eventKey)
	if err != nil {
		return err
	}
	for _, s := range []bus.QueueSpec{respSpec, eventSpec} {
		if err := c.declare(ctx, s); err != nil {
			if ctx.Err() != nil {
				return nil // stopped while starting
			}
			return err
		}
	}
	// Outcomes handled by other replicas arrive as events from here on; those
	// handled before free their guard slots now.
	c.releaseFinishedTickets(ctx)

	// Responses: in-flight handlers finish under workCtx after ctx ends.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	runPart := func(name string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("caller %q: %s: %w", c.opts.Name, name, err)
				stop()
			}
		}()
	}
	runPart("responses", func() error {
		return c.opts.Bus.Consume(ctx, respSpec.Name, bus.ConsumeOptions{Concurrency: c.opts.Concurrency, Ordered: true}, c.handleResponse)
	})
	runPart("events", func() error {
		return c.opts.Bus.Consume(ctx, eventSpec.Name, bus.ConsumeOptions{Concurrency: 1}, c.handleEvent)
	})
	runPart("sweeper", func() error { return c.sweepLoop(ctx) })
	c.log.Info("caller started")
	wg.Wait()
	close(errs)
	var first error
	for err := range errs {
		first = errors.Join(first, err)
	}
	c.log.Info("caller stopped")
	return first
}

// Close stops Run, waits for it (bounded) and wakes every waiting Call with
// ErrClosed. Idempotent.
func (c *Caller) Close() error {
	return c.life.Close(fmt.Sprintf("caller %q", c.opts.Name), closeTimeout)
}

// closeTimeout bounds Close: in-flight responses finish or are requeued.
const closeTimeout = 30 * time.Second

// declare declares spec once per process.
func (c *Caller) declare(ctx context.Context, spec bus.QueueSpec) error {
	c.declMu.Lock()
	defer c.declMu.Unlock()
	if c.declared[spec.Name] {
		return nil
	}
	if err := c.opts.Bus.Declare(ctx, spec); err != nil {
		return fmt.Errorf("caller %q: declare %q: %w", c.opts.Name, spec.Name, err)
	}
	c.declared[spec.Name] = true
	return nil
}

// retry runs op until it succeeds or ctx ends, backing off on failures of
// working memory, so a Redis outage delays a response instead of losing it.
func (c *Caller) retry(ctx context.Context, what string, op func(context.Context) error) error {
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, memory.ErrUnavailable) {
			return fmt.Errorf("%s: %w", what, err)
		}
		if attempt == 1 || attempt%20 == 0 {
			c.log.Warn("working memory unavailable; retrying", zap.String("op", what), zap.Int("attempt", attempt), zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %w)", what, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, DefaultMemoryRetryMax)
	}
}
