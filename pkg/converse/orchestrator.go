// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Defaults of Options.
const (
	DefaultStateTTL     = 7 * 24 * time.Hour
	DefaultLeaseTTL     = 15 * time.Second
	DefaultPollInterval = 2 * time.Second
)

// Options configures an Orchestrator.
type Options struct {
	// Caller sends the turns; its name is the orchestrator's (the caller
	// every agent sees). The owner runs and closes it. Required.
	Caller *caller.Caller
	// Bus carries the control messages. Required.
	Bus bus.Bus
	// Memory holds the conversations. Required.
	Memory memory.Memory
	// Policy decides which pairs may converse (deny by default).
	Policy Policy
	// StateTTL is how long a record outlives its last change; default 7 days.
	StateTTL time.Duration
	// LeaseTTL is how long a driver's lease lasts unrenewed (it is renewed
	// every third of it); a killed driver is replaced after it. Default 15s.
	LeaseTTL time.Duration
	// PollInterval is how often a waiting driver reads the control log
	// besides the bus's nudges; default 2s.
	PollInterval time.Duration
	// MemoryRetryBound is how long a driver rides out an outage of working
	// memory (each read, write and wait retried with backoff) before it
	// stops with an error; default memory.DefaultRetryBound.
	MemoryRetryBound time.Duration
	// MaxSharedCalls is how many sends to remote agents (shared calls) may
	// be in flight at once on behalf of one local agent, across every
	// process of this working memory (the protocol's
	// maxConcurrentSharedCalls); the next one waits for a free slot. Every
	// process should use the same value. Default DefaultMaxSharedCalls (3).
	MaxSharedCalls int
	// InstanceID names this process (its control queue); default random.
	InstanceID string
	// OnEvent, when set, sees every event of the conversations driven here,
	// on the driving goroutine.
	OnEvent func(c *Conversation, e Event)
	// Logger receives the audit lines ("converse call", "converse finished");
	// nil means no logging.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Orchestrator starts and drives conversations.
type Orchestrator struct {
	opts   Options
	st     store
	name   string
	log    *zap.Logger
	closed chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
}

// New validates opts and returns an orchestrator.
func New(opts Options) (*Orchestrator, error) {
	switch {
	case opts.Caller == nil:
		return nil, fmt.Errorf("%w: no caller", ErrInvalidSpec)
	case opts.Bus == nil:
		return nil, fmt.Errorf("%w: no bus", ErrInvalidSpec)
	case opts.Memory == nil:
		return nil, fmt.Errorf("%w: no memory", ErrInvalidSpec)
	case opts.StateTTL < 0 || opts.LeaseTTL < 0 || opts.PollInterval < 0 || opts.MemoryRetryBound < 0:
		return nil, fmt.Errorf("%w: a negative duration", ErrInvalidSpec)
	case opts.MaxSharedCalls < 0:
		return nil, fmt.Errorf("%w: max shared calls must not be negative, got %d", ErrInvalidSpec, opts.MaxSharedCalls)
	}
	def(&opts.StateTTL, DefaultStateTTL)
	def(&opts.MemoryRetryBound, memory.DefaultRetryBound)
	def(&opts.LeaseTTL, DefaultLeaseTTL)
	def(&opts.PollInterval, DefaultPollInterval)
	def(&opts.MaxSharedCalls, DefaultMaxSharedCalls)
	if opts.LeaseTTL < 30*time.Millisecond {
		return nil, fmt.Errorf("%w: lease TTL %s is below 30ms", ErrInvalidSpec, opts.LeaseTTL)
	}
	if opts.InstanceID == "" {
		opts.InstanceID = randomHex(8)
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if _, err := ControlQueue(opts.Caller.Name(), opts.InstanceID+"-"+NewID()); err != nil {
		return nil, fmt.Errorf("%w: instance id: %w", ErrInvalidSpec, err)
	}
	return &Orchestrator{
		opts: opts, st: store{mem: opts.Memory, ttl: opts.StateTTL, bound: opts.MemoryRetryBound, log: opts.Logger}, name: opts.Caller.Name(),
		log: opts.Logger, closed: make(chan struct{}),
	}, nil
}

// Name is the orchestrator's caller name.
func (o *Orchestrator) Name() string { return o.name }

// Start checks spec against the policy and records a new conversation in
// state idle; Drive runs it. A refused spec is an error wrapping
// ErrInvalidSpec, ErrLoop or ErrForbidden, and nothing is recorded.
func (o *Orchestrator) Start(ctx context.Context, spec Spec) (*Conversation, error) {
	spec, err := normalize(spec)
	if err != nil {
		return nil, err
	}
	if err := o.opts.Policy.Check(spec, o.name); err != nil {
		o.log.Warn("converse refused", zap.String("local", spec.Local), zap.String("remote", spec.Remote),
			zap.String("orchestrator", o.name), zap.String("requester", spec.Requester), zap.Error(err))
		return nil, err
	}
	now := o.opts.Now().UTC()
	id := NewID()
	session, err := memory.ConversationSession(id)
	if err != nil {
		return nil, fmt.Errorf("converse: start: %w", err)
	}
	c := &Conversation{
		ID: id, Spec: spec, Orchestrator: o.name, Session: session, TraceID: randomHex(16),
		State: Idle, CreatedAt: now, UpdatedAt: now,
	}
	c.event(now, EventState, "created", "")
	if err := o.st.create(ctx, c); err != nil {
		return nil, err
	}
	o.log.Info("converse started", zap.String("conversation", id), zap.String("local", spec.Local),
		zap.String("remote", spec.Remote), zap.String("mode", string(spec.Mode)),
		zap.String("orchestrator", o.name), zap.String("requester", spec.Requester))
	return c, nil
}

// Drive takes conversation id's lease and runs it until it ends (completed,
// error or stopped), ctx ends or Close is called; it returns the record as
// it last saved it. A conversation driven elsewhere is ErrDriven; one that
// ended is returned at once. Drive resumes where the record says: a send
// that was made is never made again.
func (o *Orchestrator) Drive(ctx context.Context, id string) (*Conversation, error) {
	c, err := o.st.load(ctx, id)
	if err != nil || c.State.Terminal() {
		return c, err
	}
	select {
	case <-o.closed:
		return c, ErrClosed
	default:
	}
	o.wg.Add(1)
	defer o.wg.Done()
	token := o.opts.InstanceID + "/" + randomHex(6)
	ok, err := o.st.acquire(ctx, id, token, o.opts.LeaseTTL)
	if err != nil {
		return c, err
	}
	if !ok {
		return c, fmt.Errorf("%w: %s", ErrDriven, id)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-o.closed:
			cancel(ErrClosed)
		case <-ctx.Done():
		}
	}()
	var bg sync.WaitGroup
	defer func() {
		// The lease goes last: a renewal in flight would take it again after
		// its release, and the conversation would look driven for a TTL.
		cancel(nil)
		bg.Wait()
		o.st.release(context.WithoutCancel(ctx), id, token)
	}()
	bg.Go(func() { o.keepLease(ctx, cancel, id, token) })
	wake := make(chan struct{}, 1)
	if err := o.listen(ctx, &bg, id, wake); err != nil {
		return c, err
	}
	// The lease is ours: read the record again (the first read may predate
	// the last driver's final save).
	if c, err = o.st.load(ctx, id); err != nil {
		return c, err
	}
	d := &driver{o: o, c: c, wake: wake}
	err = d.run(ctx)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = errors.Join(err, cause)
	}
	return d.c, err
}

// keepLease renews the lease every third of its TTL; it cancels the drive
// when the lease is lost or could not be renewed for a whole TTL.
func (o *Orchestrator) keepLease(ctx context.Context, cancel context.CancelCauseFunc, id, token string) {
	ttl := o.opts.LeaseTTL
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := o.st.renew(ctx, id, token, ttl)
		switch {
		case err == nil:
			last = time.Now()
		case errors.Is(err, ErrLeaseLost):
			cancel(err)
			return
		case time.Since(last) >= ttl:
			cancel(fmt.Errorf("%w: not renewed for %s: %w", ErrLeaseLost, ttl, err))
			return
		}
	}
}

// listen declares this drive's control queue, bound to the conversation's
// control routing key, and consumes it: every message wakes the driver,
// which reads the control log (the messages only say something is there).
func (o *Orchestrator) listen(ctx context.Context, bg *sync.WaitGroup, id string, wake chan struct{}) error {
	spec, err := ControlQueue(o.name, o.opts.InstanceID+"-"+id, id)
	if err != nil {
		return err
	}
	if err := o.opts.Bus.Declare(ctx, spec); err != nil {
		return fmt.Errorf("converse: declare the control queue of %s: %w", id, err)
	}
	bg.Go(func() {
		err := o.opts.Bus.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 1}, func(_ context.Context, d *bus.Delivery) error {
			select {
			case wake <- struct{}{}:
			default:
			}
			return d.Ack()
		})
		if err != nil && ctx.Err() == nil {
			o.log.Warn("converse control consumer stopped", zap.String("conversation", id), zap.Error(err))
		}
	})
	return nil
}

// Close stops every Drive of this orchestrator (their conversations stay as
// saved, to be driven again) and waits for them, within 10s. Idempotent.
func (o *Orchestrator) Close() error {
	o.once.Do(func() { close(o.closed) })
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("converse: close: drives still running after 10s")
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
