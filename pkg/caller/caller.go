// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

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
// An agent may end a turn of a task with a question (input-required): Call
// and Wait return with it (Outcome.WaitingForInput, Outcome.Question), and
// Reply (or Continue, which also waits) answers it with the task's next
// turn, a request carrying the task's history to any replica of the agent.
// Every task has a context id, and the next task of a context carries the
// earlier tasks' messages. turns.go and contexts.go describe what is kept;
// docs/tasks.md the lifecycle.
//
// Shutdown order, when Run's context ends or Close is called (a part that
// fails stops Run the same way):
//
//  1. new Invoke and Call are refused with ErrClosed (Close only);
//  2. the response consumer stops: no new response is taken; one being
//     finalized completes, or gives up under Close and is requeued
//     (finalize is idempotent, so a replica or a restart redoes it);
//  3. the deadline sweeper stops;
//  4. the event consumer (outcomes stored by other replicas) stops;
//  5. Run returns, and then Close wakes every waiting Call and Wait with
//     ErrClosed — never before the responses they wait for stopped flowing.
//
// The bus and memory are the owner's to close, after the caller.
//
// # How an outcome reaches a waiter
//
// Every outcome is stored in working memory (with the task out of the
// pending index) before anyone is told of it, so a waiter that looks the
// task up finds it. A Call, Wait or Watch waits on one channel of events
// (waiters.add) in one loop (wait); everything that can end the wait comes
// into that loop from one of three sources, and the loop ends the same way
// for each: with the outcome an event carries, or else with a look-up
// (settle). Each source covers a case the others cannot:
//
//  1. This process. The replica that stored the outcome (its response
//     consumer, its sweeper, or the waiter's own timeout of a task long
//     overdue) hands it to its waiters of the task (tell, then
//     waiters.notify), without a look-up. It is the usual case — the
//     replica that calls is the one that consumes the response — and the
//     cheapest: no bus message and no memory round trip.
//  2. Another replica's event. Replicas compete for one response queue, so
//     the one that consumed a response is often not the one that waits.
//     When it has no waiter of the task, it broadcasts a copy of the
//     response on agent.event.<Name> (broadcast), and the event consumer
//     of every other running replica passes it to its waiters
//     (handleEvent, waiters.notifyPayload): a status update as it is, a
//     result or an error as a reason to look up. Only this source carries
//     status updates to another replica (they are not stored) and frees the
//     guard slot of the replica that invoked the task; without it an
//     outcome handled elsewhere would wait for the poll.
//  3. The poll. Every DefaultPollInterval the loop looks the task up itself
//     (at most a quarter of it later: the caller's waits share one timer for
//     it, pollClock), as it does once before it waits (Wait, Watch.Wait).
//     Source 2 is best effort and sometimes absent: a process that waits
//     without running Run has no event queue; the event queue is exclusive, so
//     events published while its connection is down are lost with it; a
//     broadcast that fails is not retried; none is sent when the replica that
//     stored the outcome has a waiter of its own (a second waiter elsewhere);
//     and a waiter that leaves 16 events unread misses the next ones. Without
//     the poll each of these waits would last until its context ends.
package caller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// Defaults of Options.
const (
	DefaultResultTTL = 60 * time.Minute
	// DefaultAuditTTL is the default of Options.AuditTTL: how long the call
	// history (the audit records) outlives the results.
	DefaultAuditTTL = 7 * 24 * time.Hour
	// DefaultPreviewRunes is the default of Options.PreviewRunes.
	DefaultPreviewRunes  = 200
	DefaultTimeout       = 30 * time.Second
	DefaultMaxTimeout    = 5 * time.Minute
	DefaultSweepInterval = time.Second
	// DefaultConcurrency is the default of Options.Concurrency: enough
	// responses at once for a caller with many calls in flight to write their
	// outcomes in shared round trips (docs/performance.md).
	DefaultConcurrency  = 32
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultMemoryRetryBound is the default of Options.MemoryRetryBound:
	// below RabbitMQ's default consumer_timeout of 30 minutes.
	DefaultMemoryRetryBound = 25 * time.Minute
	// DefaultTransientExpiry is the default of Options.TransientExpiry.
	DefaultTransientExpiry = 30 * time.Minute
	// DefaultInputTimeout is the default of Options.InputTimeout.
	DefaultInputTimeout = time.Hour
	// DefaultMaxContextMessages is the default of Options.MaxContextMessages.
	DefaultMaxContextMessages = 20
	// DefaultMaxTaskHistory is the default of Options.MaxTaskHistory.
	DefaultMaxTaskHistory = 64
	// DefaultContextTTL is the default of Options.ContextTTL: the default
	// conversation TTL (memory.conversation_ttl).
	DefaultContextTTL = 7 * 24 * time.Hour
)

// Options configures a Caller.
type Options struct {
	// Name is the caller's agent name: responses come to agent.response.<Name>.
	Name string
	// Transient declares agent.response.<Name> so that the broker deletes
	// it once no replica has consumed it for TransientExpiry (RabbitMQ
	// x-expires; unlike an exclusive queue it survives a reconnection): for
	// a short-lived program with a generated name, which would otherwise
	// leave a durable queue behind on every run. The default, durable mode
	// keeps the queue forever, so responses wait in it while no replica
	// runs; a transient caller's wait only until the expiry, then are lost
	// with the queue and the sweeper times their tasks out (if a replica
	// runs again). One name is either durable or transient: declaring the
	// other mode's queue is a topology mismatch (bus.ErrTopologyMismatch).
	// The embedded bus never deletes the queue.
	Transient bool
	// TransientExpiry is how long a transient caller's response queue
	// outlives its last consumer; default DefaultTransientExpiry (30m).
	// Ignored unless Transient is set.
	TransientExpiry time.Duration
	// Bus carries requests and responses. Required.
	Bus bus.Bus
	// Memory holds task records, results and conversations. Required.
	Memory memory.Memory
	// Resolver, when set (the agent directory), vets every target before it is
	// invoked: an unknown agent or a skill it lacks is refused at once with a
	// typed error, the target's canonical spelling is used, and the input is
	// checked against the schema the target declares for the skill.
	Resolver Resolver
	// Guard, when set, admits every call before it is published (policy,
	// calls in flight, rate, circuit breaker; see pkg/guard) and is told its outcome.
	Guard *guard.Guard
	// Identities maps the broker users that publish answers to agent names
	// (identity.go); nil is bus.Identities' zero behaviour.
	Identities *bus.Identities
	// ResultTTL is how long results stay in working memory; default 60m.
	ResultTTL time.Duration
	// AuditTTL is how long a call's entry in its session's call history —
	// its audit record, with bounded, redacted previews of the task and the
	// output — stays in working memory; default 7 days, independent of
	// ResultTTL.
	AuditTTL time.Duration
	// PreviewRunes bounds the task and output previews of an audit record
	// (and the result previews of notification turns); default 200.
	PreviewRunes int
	// AuditStreamMaxLen, when positive, also appends every audit record to
	// the Redis stream memory.AuditStreamKey (in the batch that stores it,
	// so at least once), trimmed to about this many entries, for a log
	// shipper. 0: no stream.
	AuditStreamMaxLen int64
	// AuditWriter, when set, receives every audit record as one JSON line
	// (e.g. os.Stdout for a log shipper). Writes are serialised; a failed
	// write is logged, never an error of the call.
	AuditWriter io.Writer
	// KeepSecrets stores results as the agent sent them. By default the
	// result stored at the memory key — what get_from_working_memory gives
	// a model, and what Call and Wait return — is redacted (internal/redact,
	// the process's redactor): passwords in URLs, tokens, keys, configured
	// patterns. Notifications, audit records and logs are redacted either way.
	KeepSecrets bool
	// DefaultTimeout applies to requests without one (30s); MaxTimeout clamps all (5m).
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	// DefaultWait is how long a task may wait in its queue to be taken when
	// neither the call nor its target (WaitBounds) says; 0 (the default):
	// no wait bound of its own, the timeout covers the wait and the run.
	// MaxWait clamps every wait bound; default DefaultMaxWait (1h).
	// See queuewait.go.
	DefaultWait time.Duration
	MaxWait     time.Duration
	// TakeGrace is how long past a task's startBy the sweeper waits for
	// the take notice of an agent that took it just in time, before it
	// says EXPIRED_IN_QUEUE; default DefaultTakeGrace (5s).
	TakeGrace time.Duration
	// SweepInterval is how often overdue tasks are looked for; default 1s.
	SweepInterval time.Duration
	// MaxDepth is the longest call chain (origin included) a call may
	// extend; default a2a.DefaultMaxDepth.
	MaxDepth int
	// MemoryRetryBound is how long a response waits, unacked, for working
	// memory to accept its outcome (whatever the error: unavailable,
	// read-only, out of memory, refused …) before it is requeued; default
	// 25m. Keep it below the broker's consumer_timeout, 30 min by default:
	// past that the broker closes the channel.
	MemoryRetryBound time.Duration
	// InputTimeout is how long a task that asked a question waits for the
	// caller's answer (Reply) before it ends TIMEOUT; default 1h. Waiting
	// for input is not running: the answer's turn gets a deadline of its own.
	InputTimeout time.Duration
	// MaxTaskHistory bounds the messages kept in a task's history (its
	// requests, questions and answers; the oldest dropped first, a marker
	// in their place); default 64, at most a2a.MaxHistoryMessages.
	MaxTaskHistory int
	// MaxContextMessages bounds the messages kept in a context's history
	// (each finished task adds its request and its final answer; the
	// oldest dropped first) and sent with the next task in the context;
	// default 20, at most a2a.MaxHistoryMessages; negative keeps none (no
	// context history is read or written). ContextTTL is how long a
	// context's history lives after its last task once a second task
	// continued it (the session's conversation TTL); default 7 days. See
	// contexts.go.
	MaxContextMessages int
	ContextTTL         time.Duration
	// Concurrency is how many responses are handled at once (the response
	// queue's prefetch); default DefaultConcurrency. Its handlers start as
	// they are needed, so an idle caller holds few.
	Concurrency int
	// InstanceID names this process; default a random UUID.
	InstanceID string
	// Codec encodes and decodes bus messages.
	Codec a2a.Codec
	// Observer, when set, is told about every call (metrics, tracing; see observe.go).
	Observer Observer
	// Logger receives one line per task outcome ("task finished", and "call refused" per refused call);
	// nil means no logging. Give it a logger that does not sample
	// (node.NewLogger's): a sampling one, such as zap.NewProduction's, drops
	// most of these lines under load, as they share one message.
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
	component.Default(&o.ResultTTL, DefaultResultTTL)
	component.Default(&o.AuditTTL, DefaultAuditTTL)
	component.Default(&o.PreviewRunes, DefaultPreviewRunes)
	component.Default(&o.DefaultTimeout, DefaultTimeout)
	component.Default(&o.MaxTimeout, DefaultMaxTimeout)
	component.Default(&o.MaxWait, DefaultMaxWait)
	component.Default(&o.TakeGrace, DefaultTakeGrace)
	if o.DefaultWait < 0 || o.MaxWait < 0 {
		return fmt.Errorf("%w: DefaultWait %s and MaxWait %s must not be negative", ErrInvalidOptions, o.DefaultWait, o.MaxWait)
	}
	component.Default(&o.SweepInterval, DefaultSweepInterval)
	component.Default(&o.MemoryRetryBound, DefaultMemoryRetryBound)
	component.Default(&o.TransientExpiry, DefaultTransientExpiry)
	if o.Transient && o.TransientExpiry < time.Millisecond {
		return fmt.Errorf("%w: TransientExpiry %s is below a millisecond", ErrInvalidOptions, o.TransientExpiry)
	}
	if o.DefaultTimeout > o.MaxTimeout {
		o.DefaultTimeout = o.MaxTimeout
	}
	component.Default(&o.InputTimeout, DefaultInputTimeout)
	component.Default(&o.MaxTaskHistory, DefaultMaxTaskHistory)
	component.Default(&o.MaxContextMessages, DefaultMaxContextMessages)
	component.Default(&o.ContextTTL, DefaultContextTTL)
	switch {
	case o.InputTimeout < 0 || o.ContextTTL < 0:
		return fmt.Errorf("%w: InputTimeout %s and ContextTTL %s must not be negative", ErrInvalidOptions, o.InputTimeout, o.ContextTTL)
	case o.MaxTaskHistory < 2 || o.MaxTaskHistory > a2a.MaxHistoryMessages:
		return fmt.Errorf("%w: MaxTaskHistory %d is outside 2..%d", ErrInvalidOptions, o.MaxTaskHistory, a2a.MaxHistoryMessages)
	case o.MaxContextMessages > a2a.MaxHistoryMessages:
		return fmt.Errorf("%w: MaxContextMessages %d is over %d", ErrInvalidOptions, o.MaxContextMessages, a2a.MaxHistoryMessages)
	}
	component.Default(&o.Concurrency, DefaultConcurrency)
	component.Default(&o.MaxDepth, a2a.DefaultMaxDepth)
	component.Defaults(&o.InstanceID, &o.Logger, &o.Now)
	if err := a2a.ValidateInstanceID(o.InstanceID); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return nil
}

// Resolver vets the target of a call before it is published (the agent
// directory implements it). pkg/tools uses the same interface.
type Resolver interface {
	// Resolve returns the canonical spelling of agent after checking that it
	// offers skill, or refuses them with an *a2a.Error (AGENT_NOT_FOUND,
	// SKILL_NOT_SUPPORTED). Any wait for an agent not known yet ends when ctx does.
	Resolve(ctx context.Context, agent, skill string) (string, error)
	// InputSchema returns the JSON Schema agent declares for the structured
	// input of skill; ok is false when it declares none.
	InputSchema(agent, skill string) (schema json.RawMessage, ok bool)
}

// Caller invokes agents on behalf of one caller name.
type Caller struct {
	opts    Options
	log     *zap.Logger
	waiters *waiters
	polls   pollClock   // the waits' poll (wait.go)
	local   *localTasks // records of the tasks this process invoked

	tickets guardTickets  // guard tickets of the tasks this process invoked (guard.go)
	owned   ownedSessions // sessions this caller owns, recently confirmed (sessions.go)

	auditMu sync.Mutex // serialises the writes to Options.AuditWriter

	declMu   sync.Mutex
	declared map[string]bool // queues this process has declared

	life *component.Runner // Run once; Close wakes waiters through life.AfterClose()

	pending string // the index of this caller's unfinished tasks (memory.PendingIndex)
}

// New validates opts and returns a caller. Call Run to handle responses.
func New(opts Options) (*Caller, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	pending, err := memory.PendingIndex(opts.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: name: %w", ErrInvalidOptions, err)
	}
	return &Caller{
		opts:     opts,
		pending:  pending,
		log:      opts.Logger.With(zap.String("caller", opts.Name), zap.String("instance", opts.InstanceID)),
		waiters:  newWaiters(),
		polls:    pollClock{interval: DefaultPollInterval},
		local:    newLocalTasks(),
		declared: map[string]bool{},
		life:     component.New(ErrClosed, ErrRunning),
	}, nil
}

// Name is the caller's agent name.
func (c *Caller) Name() string { return c.opts.Name }

// Run consumes the caller's responses, runs the deadline sweeper and listens
// for the events of the other replicas until ctx is done or Close is called.
func (c *Caller) Run(ctx context.Context) error {
	ctx, _, finish, err := c.life.Start(ctx, nil)
	if err != nil {
		return err
	}
	defer finish()

	respSpec, err := c.responseQueue()
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

	// The parts, in the order they stop (see the package doc): each its own
	// stage, so each stops only once the one before has returned.
	g := component.NewGroup()
	_ = g.Add(0, "responses", func(ctx context.Context) error {
		return c.opts.Bus.Consume(ctx, respSpec.Name, bus.ConsumeOptions{Concurrency: c.opts.Concurrency, Ordered: true}, c.handleResponse)
	}, nil)
	_ = g.Add(1, "sweeper", c.sweepLoop, nil)
	_ = g.Add(2, "events", func(ctx context.Context) error {
		return c.opts.Bus.Consume(ctx, eventSpec.Name, bus.ConsumeOptions{Concurrency: 1}, c.handleEvent)
	}, nil)
	c.log.Info("caller started")
	c.observeRunning(true)
	err = g.Run(ctx, 0)
	c.observeRunning(false)
	c.log.Info("caller stopped")
	if err != nil {
		return fmt.Errorf("caller %q: %w", c.opts.Name, err)
	}
	return nil
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
		if spec.Kind == bus.KindResponse && errors.Is(err, bus.ErrTopologyMismatch) && !errors.Is(err, bus.ErrOtherDeployment) {
			return fmt.Errorf("caller %q: declare %q as a %s caller's response queue: it exists in the other mode "+
				"(a durable and a transient caller cannot share a name; delete the queue or use the same Options.Transient): %w",
				c.opts.Name, spec.Name, c.mode(), err)
		}
		return fmt.Errorf("caller %q: declare %q: %w", c.opts.Name, spec.Name, err)
	}
	c.declared[spec.Name] = true
	return nil
}

// responseQueue is the spec of the caller's response queue: durable, or
// expiring after Options.TransientExpiry for a transient caller.
func (c *Caller) responseQueue() (bus.QueueSpec, error) {
	spec, err := bus.ResponseQueue(c.opts.Name)
	if err == nil && c.opts.Transient {
		spec.Expires = c.opts.TransientExpiry
	}
	return spec, err
}

// mode names the caller's mode in errors: "durable" or "transient".
func (c *Caller) mode() string {
	if c.opts.Transient {
		return "transient"
	}
	return "durable"
}

// retry runs op until it succeeds, backing off after every failure of
// working memory that waiting may cure (memory.Transient: unavailable,
// read-only, out of memory, refused by an ACL, misconfigured), so that an
// outcome waits until memory takes it instead of its response being
// requeued into the dead-letter queue. It gives up at once on any other
// error, and when ctx ends or the retryBound it carries passes
// (handleResponse bounds a response's retries by Options.MemoryRetryBound).
func (c *Caller) retry(ctx context.Context, what string, op func(context.Context) error) error {
	var failed memory.Failure
	var first time.Time
	before := 0 // attempts made before memory.Retry's
	onFailure := func(f memory.Failure) {
		if f.Attempt += before; f.First() {
			first = time.Now()
		} else {
			f.Waited = time.Since(first)
		}
		failed = f
		c.observeRetry(what)
		if f.First() || f.Attempt%20 == 0 { // the first failure, then about every 40s
			c.log.Warn("working memory failed; the outcome waits (its response unacked) and is retried",
				zap.String("op", what), zap.Int("attempt", f.Attempt), zap.Duration("waited", f.Waited), zap.Error(f.Err))
		}
	}
	if b, ok := ctx.Value(retryBoundKey{}).(*retryBound); ok {
		var err error
		if time.Until(b.at) > retryBoundNear { // the usual: one attempt, far from the bound, needs no timer
			if err = op(ctx); err == nil {
				return nil
			}
			if cerr := ctx.Err(); cerr != nil || !memory.Transient(err) { // as memory.Retry ends
				if cerr != nil && !errors.Is(err, cerr) {
					err = fmt.Errorf("%w (last error: %w)", context.Cause(ctx), err)
				}
				return fmt.Errorf("%s: %w", what, err)
			}
			onFailure(memory.Failure{Attempt: 1, Err: err})
			before = 1
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, b.at, errRetryBound)
		defer cancel()
		if before > 0 && !backoff.Sleep(ctx, memory.RetryBackoff.Delay(0)) {
			return fmt.Errorf("%s: %w (last error: %w)", what, context.Cause(ctx), err)
		}
	}
	err := memory.Retry(ctx, 0, op, onFailure)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if failed.Attempt > 0 {
		c.log.Info("working memory accepted the write after failures", zap.String("op", what),
			zap.Int("attempts", failed.Attempt+1), zap.Duration("waited", time.Since(first)))
	}
	return nil
}

// retryBound is a response's context carrying when its memory retries end
// (Options.MemoryRetryBound after it arrived) without a timer of its own:
// retry puts the deadline on its context only once working memory failed,
// or when the bound is near (retryBoundNear), so that an attempt that could
// reach the bound runs under it. A response whose memory answers pays no
// timer.
type retryBound struct {
	context.Context
	at time.Time
}

type retryBoundKey struct{}

// Value is the bound itself for retryBoundKey, else the parent's value.
func (b *retryBound) Value(key any) any {
	if key == (retryBoundKey{}) {
		return b
	}
	return b.Context.Value(key)
}

// retryBoundNear is how close to its retryBound an attempt runs under the
// deadline from its start: more than any one attempt of working memory
// takes (each bounded by the memory's own timeouts). A variable for tests.
var retryBoundNear = time.Minute

// errRetryBound is the cause of a response's context that outlived
// Options.MemoryRetryBound: its response is requeued.
var errRetryBound = errors.New("caller: working memory kept failing past MemoryRetryBound; the response is requeued")
