// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package agent is the receiving side of a2abus: register a handler per
// skill, run the task worker on agent.task.<Name>, publish status updates and
// the result or a typed error — confirmed before the task is acked — and
// answer cancel requests. Ephemeral mode runs a fixed number of tasks and
// exits, for KEDA ScaledJobs. A handler may end its turn of a task with a
// question for the caller (Ask, AskAuth): the caller's answer comes as a new
// request for the same task, with the turn number and the task's history
// (Task.Turn, Task.History), to any instance.
//
// Shutdown order: stop fetching tasks → let in-flight tasks finish within
// StopTimeout → cancel the rest and requeue them (nack) → stop the cancel
// consumer. The bus is the caller's to close.
package agent

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Defaults of Options.
const (
	DefaultConcurrency  = 4
	DefaultStopTimeout  = 30 * time.Second
	DefaultMaxTasks     = 1
	DefaultIdleTimeout  = 30 * time.Second
	DefaultReplyTimeout = 30 * time.Second
	// DefaultMaxTaskDuration is below RabbitMQ's default consumer_timeout
	// (30 min), past which the broker closes the channel and redelivers.
	DefaultMaxTaskDuration = 25 * time.Minute
)

// Options configures an Agent.
type Options struct {
	// Card describes the agent; Card.Name is its bus name.
	Card a2a.AgentCard
	// Bus carries tasks and replies. Required.
	Bus bus.Bus
	// Concurrency is how many tasks run at once (= the prefetch); default 4.
	Concurrency int
	// MaxAttempts is how many deliveries a task gets before it fails with EXECUTION_FAILED.
	MaxAttempts int
	// StopTimeout bounds how long in-flight tasks may finish after stop; default
	// 30s. It must be below MaxTaskDuration.
	StopTimeout time.Duration
	// MaxTaskDuration bounds every task's handler: its deadline is at most
	// this long after the task was received, whatever the request asks, and a
	// task that reaches it ends TIMEOUT. Keep it below the broker's
	// consumer_timeout (30 min by default), which otherwise closes the
	// channel and runs the task again; default 25 min.
	MaxTaskDuration time.Duration
	// ReplyTimeout bounds how long a reply is retried (each publish bounded
	// by the bus's own bus.publish_timeout) before the task is requeued;
	// default 30s.
	ReplyTimeout time.Duration
	// Ephemeral makes Run return after MaxTasks tasks or IdleTimeout without one.
	Ephemeral   bool
	MaxTasks    int
	IdleTimeout time.Duration
	// AnnounceInterval is how often the card is announced on discovery.announce
	// (also at start, on discovery.query, and deregistered on stop); default 2m.
	AnnounceInterval time.Duration
	// MaxDepth is the longest call chain (origin included) a task may come
	// with; longer or cyclic ones are refused before running. Default
	// a2a.DefaultMaxDepth.
	MaxDepth int
	// AnnounceSecret signs announcements (HMAC-SHA256) so that directories
	// sharing it reject forged cards; empty sends them unsigned.
	AnnounceSecret []byte
	// SigningKey, when set, signs announcements with the agent's own ed25519
	// key (a2a.SignEd25519), so that directories pinning its public key
	// refuse cards for its name signed by anyone else (see signing.go).
	SigningKey ed25519.PrivateKey
	// Policy, when set, is asked whether each task's caller may call this
	// agent; a task it refuses is answered FORBIDDEN without running.
	Policy Policy
	// Identities maps the broker users that publish tasks and cancels to
	// caller names (identity.go); nil is bus.Identities' zero behaviour.
	Identities *bus.Identities
	// Memory, when set, is read at start for the cancels callers recorded
	// while no instance ran (memory.CancelIndex): those tasks are answered
	// CANCELED when dequeued, without running. Without it only the cancels
	// received while an instance runs are honoured. A memory.Memory is one.
	Memory CancelStore
	// InstanceID names this process; default a random UUID.
	InstanceID string
	// Codec encodes and decodes bus messages (body limit).
	Codec a2a.Codec
	// Observer, when set, is told about every task (metrics, tracing; see observe.go).
	Observer Observer
	// Logger receives one line per task outcome ("task completed" or "task failed");
	// nil means no logging. Give it a logger that does not sample
	// (node.NewLogger's): a sampling one, such as zap.NewProduction's, drops
	// most of these lines under load, as they share one message.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o *Options) normalize() error {
	if o.Bus == nil {
		return fmt.Errorf("%w: Bus is required", ErrInvalidOptions)
	}
	if err := a2a.ValidateAgentName(o.Card.Name); err != nil {
		return fmt.Errorf("%w: card name: %w", ErrInvalidOptions, err)
	}
	component.Default(&o.Concurrency, DefaultConcurrency)
	component.Default(&o.MaxAttempts, bus.DefaultMaxAttempts)
	component.Default(&o.StopTimeout, DefaultStopTimeout)
	component.Default(&o.ReplyTimeout, DefaultReplyTimeout)
	component.Default(&o.MaxTaskDuration, DefaultMaxTaskDuration)
	if o.StopTimeout >= o.MaxTaskDuration {
		return fmt.Errorf("%w: %w: StopTimeout %s, MaxTaskDuration %s", ErrInvalidOptions, ErrStopTimeoutTooLong, o.StopTimeout, o.MaxTaskDuration)
	}
	component.Default(&o.MaxDepth, a2a.DefaultMaxDepth)
	component.Default(&o.AnnounceInterval, DefaultAnnounceInterval)
	component.Default(&o.MaxTasks, DefaultMaxTasks)
	component.Default(&o.IdleTimeout, DefaultIdleTimeout)
	if o.Ephemeral && o.Concurrency > o.MaxTasks {
		o.Concurrency = o.MaxTasks
	}
	component.Defaults(&o.InstanceID, &o.Logger, &o.Now)
	if err := a2a.ValidateInstanceID(o.InstanceID); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return checkSigningKey(o.SigningKey)
}

// Agent runs the skills of one agent card on the bus.
type Agent struct {
	opts     Options
	log      *zap.Logger
	panicLog *zap.Logger // log without zap's own stack trace: the panic's is logged
	handlers map[string]Handler
	mw       []Middleware
	running  *runningTasks
	schemas  map[string]*inputSchema // input schemas by skill (WithInputSchema); guarded by mu
	unstated unstated                // skills logged for a result without a confidence

	life *component.Runner

	// amu orders announcements: none goes out once the deregistration did.
	amu          sync.Mutex
	held         bool // announcements held (HoldAnnouncements); guarded by amu
	deregistered bool // the deregistration was sent; guarded by amu

	mu     sync.Mutex // guards handlers, mw and frozen
	frozen bool       // Run has begun: no more skills or middleware
}

// New validates opts and returns an agent with no skills registered.
func New(opts Options) (*Agent, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	log := opts.Logger.With(zap.String("agent", opts.Card.Name), zap.String("instance", opts.InstanceID))
	return &Agent{
		opts:     opts,
		log:      log,
		panicLog: log.WithOptions(zap.AddStacktrace(zap.LevelEnablerFunc(func(zapcore.Level) bool { return false }))),
		handlers: map[string]Handler{},
		running:  newRunningTasks(),
		life:     component.New(ErrClosed, ErrRunning),
	}, nil
}

// Name is the agent's bus name.
func (a *Agent) Name() string { return a.opts.Card.Name }

// Card returns the agent card with one skill entry per registered handler
// that the card did not already describe.
func (a *Agent) Card() a2a.AgentCard {
	a.mu.Lock()
	defer a.mu.Unlock()
	card := a.opts.Card
	card.Skills = slices.Clone(card.Skills)
	for _, id := range a.skillIDsLocked() {
		if !slices.ContainsFunc(card.Skills, func(s a2a.AgentSkill) bool { return s.ID == id }) {
			card.Skills = append(card.Skills, a2a.AgentSkill{ID: id, Name: id})
		}
	}
	return card
}

// Use adds middleware applied to every handler (the first added runs outermost).
func (a *Agent) Use(mw ...Middleware) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return ErrRunning
	}
	a.mw = append(a.mw, mw...)
	return nil
}

// Handle registers h for skill with opts: Middleware wrapping h (outermost
// first) and WithInputSchema.
func (a *Agent) Handle(skill string, h Handler, opts ...SkillOption) error {
	if err := a2a.ValidateSkillID(skill); err != nil {
		return fmt.Errorf("agent: handle: %w", err)
	}
	if h == nil {
		return fmt.Errorf("%w: nil handler for skill %q", ErrInvalidOptions, skill)
	}
	cfg, inputSchema, err := skillOptions(skill, opts)
	if err != nil {
		return err
	}
	mw := cfg.mw
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return ErrRunning
	}
	if _, dup := a.handlers[skill]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicateSkill, skill)
	}
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	a.handlers[skill] = h
	a.setInputSchemaLocked(skill, inputSchema)
	return nil
}

func (a *Agent) skillIDsLocked() []string {
	ids := make([]string, 0, len(a.handlers))
	for id := range a.handlers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (a *Agent) skillList() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.skillIDsLocked(), ", ")
}

// Run declares the agent's queues and works until ctx is done, Close is
// called, or (ephemeral) its task budget or idle time runs out; then it shuts
// down in the documented order and returns nil. A bus failure is returned.
func (a *Agent) Run(ctx context.Context) error {
	runCtx, stop, finish, err := a.life.Start(ctx, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.frozen = true
		for skill, h := range a.handlers {
			for i := len(a.mw) - 1; i >= 0; i-- {
				h = a.mw[i](h)
			}
			a.handlers[skill] = h
		}
	})
	if err != nil {
		return err
	}
	defer finish()
	return a.run(runCtx, stop)
}

// Close stops a running agent as Run's ctx would and waits for Run to return,
// at most StopTimeout plus a few seconds. Idempotent.
func (a *Agent) Close() error {
	return a.life.Close(fmt.Sprintf("agent %q", a.Name()), a.opts.StopTimeout+5*time.Second)
}
