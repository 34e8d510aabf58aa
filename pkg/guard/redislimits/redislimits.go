// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package redislimits keeps the call guard's limits in Redis, so that every
// process of a caller together stays under one limit (guard.Shared):
//
//   - calls in flight: a sorted set of slot ids per caller, each scored by
//     when its lease ends. A process reserves slots ahead, a block that
//     grows with its calls (slots.go), and admits from it with no round
//     trip; it renews the block every third of the lease, and gives back a
//     slot no call of its own used for Options.IdleReturn. The slots of a killed
//     process free themselves within one lease;
//   - rate: the GCRA of github.com/go-redis/redis_rate per (caller, target),
//     its tokens taken a few ahead by a process that uses them up in time
//     (tokens.go);
//   - circuit breaker: a hash per target of its consecutive failures, when
//     it opened and until when a probe runs, so that the failures one
//     process sees open the circuit for all. Each process reads it from a
//     copy refreshed every CircuitRefresh (circuit.go).
//
// Redis keys, P being the working memory's key prefix and the keys those
// of memory/keys.go (InFlightSlotsKey, RateKey, CircuitKey):
//
//	P limits:a2a/in-flight/<caller>         sorted set: slot id -> lease end (Unix ms)
//	rate:P limits:a2a/rate/<caller>/<target> string: the GCRA's theoretical arrival time
//	P limits:a2a/circuit/<target>           hash: f failures, o opened (Unix ms), p probe until (Unix ms)
//
// Each key is the only one of its script, so Cluster places them freely.
// Times are the Redis server's (TIME), so the processes' clocks need not agree.
package redislimits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/guard"
)

// Defaults of Options.
const (
	// DefaultLease is how long an in-flight slot outlives the last renewal
	// of its process: the slots of a killed process are free after at most this.
	DefaultLease = 15 * time.Second
	// DefaultTimeout bounds each call to Redis.
	DefaultTimeout = time.Second
	// MinLease is the shortest lease Options accepts.
	MinLease = 100 * time.Millisecond
)

// Bounds of what a process's copy of the shared limits may miss.
const (
	// DefaultIdleReturn is how long a slot reserved ahead stays unused
	// before it goes back to the shared set; it goes within one Tick more
	// (and the write's round trip), so a process's idle slots keep another's
	// calls BUSY for at most IdleReturn + Tick plus that round trip.
	DefaultIdleReturn = 100 * time.Millisecond
	// CircuitRefresh is how often a process reads again the shared circuits
	// it used in the last minute: a circuit another process opened is seen
	// here within CircuitRefresh plus a round trip.
	CircuitRefresh = 100 * time.Millisecond
	// Tick is how often the background writer looks for idle slots and
	// circuits to refresh.
	Tick = CircuitRefresh
)

// releaseBatch is how long the writer gathers releases before it writes
// them in one pipeline: other processes see a slot free that much later
// (this process at once, see release).
const releaseBatch = 10 * time.Millisecond

// queueLen bounds the circuit reports waiting for the background writer;
// beyond it a report is dropped (and logged).
const queueLen = 4096

// ErrInvalidOptions is wrapped by New's errors about its Options.
var ErrInvalidOptions = errors.New("redislimits: invalid options")

// Options configures Limits.
type Options struct {
	// Client is the Redis client (the working memory's: redismem.Memory.Client). Limits does not close it.
	Client goredis.UniversalClient
	// KeyPrefix starts every key (the working memory's key prefix).
	KeyPrefix string
	// Lease is how long an in-flight slot lives past its last renewal; 0 means DefaultLease.
	Lease time.Duration
	// Timeout bounds each call to Redis; 0 means DefaultTimeout.
	Timeout time.Duration
	// IdleReturn is how long a slot reserved ahead stays unused before it
	// goes back to Redis; 0 means DefaultIdleReturn.
	IdleReturn time.Duration
	// TokenReserve is how long tokens of the rate taken ahead stay usable;
	// 0 means DefaultTokenReserve.
	TokenReserve time.Duration
	// Logger receives the background writer's failures; nil means no logging.
	Logger *zap.Logger
}

// Limits is guard.Shared on Redis. It is safe for concurrent use. A
// background goroutine, started with the first slot or circuit used and
// stopped by Close, renews the slots this process holds, gives back those
// it holds unused, refreshes its copy of the circuits and writes the
// releases and the circuit reports, so that finishing a call costs no
// round trip (but for a circuit's probe, whose outcome is written at once).
// A release not written yet is made by this process's next take of the
// caller's slots first.
type Limits struct {
	client  goredis.UniversalClient
	prefix  string
	lease   time.Duration
	timeout time.Duration
	idle    time.Duration // Options.IdleReturn
	reserve time.Duration // Options.TokenReserve
	log     *zap.Logger
	rate    *redis_rate.Limiter
	replica string // this process's slot id prefix
	seq     atomic.Uint64

	mu       sync.Mutex
	settled  *sync.Cond                     // on mu: a take's answer is recorded (afterBusy)
	blocks   map[string]*block              // caller -> the slots reserved for its calls (slots.go)
	released map[string]map[string]struct{} // slot key -> slot ids given back, not yet known removed
	circuits map[string]*circuit            // target -> this process's copy of its circuit (circuit.go)
	tokens   map[[2]string]*tokens          // (caller, target) -> the rate's tokens taken ahead (tokens.go)
	started  bool
	closed   bool
	failed   func(error) // Watch's: the writer found Redis unreachable

	wake      chan struct{}                    // a release waits for the writer
	queue     chan func(context.Context) error // circuit reports for the writer
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

var _ guard.Shared = (*Limits)(nil)

// New returns Limits on opts.Client. It does not touch Redis.
func New(opts Options) (*Limits, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("%w: no Redis client", ErrInvalidOptions)
	}
	if opts.Lease == 0 {
		opts.Lease = DefaultLease
	}
	if opts.Lease < MinLease {
		return nil, fmt.Errorf("%w: lease %s is shorter than %s", ErrInvalidOptions, opts.Lease, MinLease)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.IdleReturn <= 0 {
		opts.IdleReturn = DefaultIdleReturn
	}
	if opts.TokenReserve <= 0 {
		opts.TokenReserve = DefaultTokenReserve
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id) // never fails (crypto/rand)
	l := &Limits{client: opts.Client, prefix: opts.KeyPrefix + "limits:", lease: opts.Lease, timeout: opts.Timeout,
		idle: opts.IdleReturn, reserve: opts.TokenReserve, log: opts.Logger.Named("redislimits"), rate: redis_rate.NewLimiter(opts.Client), replica: hex.EncodeToString(id),
		blocks: map[string]*block{}, released: map[string]map[string]struct{}{}, circuits: map[string]*circuit{},
		wake: make(chan struct{}, 1), queue: make(chan func(context.Context) error, queueLen),
		stop: make(chan struct{}), done: make(chan struct{})}
	l.settled = sync.NewCond(&l.mu)
	return l, nil
}

// bounded returns a context bounded by the per-call timeout.
func (l *Limits) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), l.timeout)
}

// startLocked starts the writer once, unless Limits is closed. l.mu is held.
func (l *Limits) startLocked() {
	if !l.started && !l.closed {
		l.started = true
		go l.write()
	}
}

// enqueue hands fn to the writer, or drops it when the queue is full.
func (l *Limits) enqueue(what string, fn func(context.Context) error) {
	l.mu.Lock()
	l.startLocked()
	l.mu.Unlock()
	select {
	case l.queue <- fn:
	default:
		l.log.Warn("shared limits: too many writes waiting, one dropped", zap.String("write", what))
	}
}

// write renews the held slots every third of the lease, gives back the
// idle ones and refreshes the circuits every Tick, and runs the queued
// writes, until Close.
func (l *Limits) write() {
	defer close(l.done)
	renewals := time.NewTicker(l.lease / 3)
	defer renewals.Stop()
	tick := time.NewTicker(Tick)
	defer tick.Stop()
	failing := false
	report := func(err error) {
		if err != nil && !failing {
			l.log.Warn("shared limits: a write failed; the slots free themselves within their lease", zap.Error(err))
		}
		failing = err != nil
		if err != nil && unreachable(err) {
			l.mu.Lock()
			failed := l.failed
			l.mu.Unlock()
			if failed != nil {
				failed(fmt.Errorf("redislimits: %w", err))
			}
		}
	}
	for {
		select {
		case <-l.stop:
			l.drain()
			return
		case <-renewals.C:
			ctx, cancel := l.bounded()
			report(errors.Join(l.renew(), l.writeReleases(ctx))) // releases a failed write left
			cancel()
		case now := <-tick.C:
			l.returnIdle(now)
			l.pruneTokens(now)
			ctx, cancel := l.bounded()
			report(errors.Join(l.writeReleases(ctx), l.refreshCircuits(ctx)))
			cancel()
		case <-l.wake:
			select { // more releases come meanwhile: one pipeline for them all
			case <-time.After(releaseBatch):
			case <-l.stop:
			}
			ctx, cancel := l.bounded()
			report(l.writeReleases(ctx))
			cancel()
		case fn := <-l.queue:
			ctx, cancel := l.bounded()
			report(fn(ctx))
			cancel()
		}
	}
}

// drain makes the queued writes (the releases of calls that finished and
// of the slots reserved unused) within one timeout in all.
func (l *Limits) drain() {
	ctx, cancel := l.bounded()
	defer cancel()
	_ = l.writeReleases(ctx) // a release not made frees itself within its lease
	for ctx.Err() == nil {
		select {
		case fn := <-l.queue:
			_ = fn(ctx) // a release not made frees itself within its lease
		default:
			return
		}
	}
}

// gcra expresses rate calls per second with a bucket of burst as
// redis_rate's whole number of calls per period: per second when rate is
// whole, else per hour (rounded to a call per hour, at least one).
func gcra(rate float64, burst int) redis_rate.Limit {
	if rate == math.Trunc(rate) && rate >= 1 {
		return redis_rate.Limit{Rate: int(rate), Burst: burst, Period: time.Second}
	}
	return redis_rate.Limit{Rate: max(1, int(math.Round(rate*3600))), Burst: burst, Period: time.Hour}
}

// Watch has the writer call failed when it finds Redis unreachable (a
// renewal, a refresh or a write that got no answer): the guard then
// leaves the shared limits alone until a ping answers.
func (l *Limits) Watch(failed func(error)) {
	l.mu.Lock()
	l.failed = failed
	l.mu.Unlock()
}

// unreachable reports whether err is no answer of Redis (a network error,
// a timeout), not an error Redis answered.
func unreachable(err error) bool {
	var answered goredis.Error
	return !errors.As(err, &answered)
}

// Ping checks that Redis answers within the timeout.
func (l *Limits) Ping() error {
	ctx, cancel := l.bounded()
	defer cancel()
	if err := l.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redislimits: ping: %w", err)
	}
	return nil
}

// Close gives back the slots this process reserved and no call uses, then
// stops the writer, after the queued writes made within one timeout: the
// slots of calls still running are no longer renewed and free themselves
// within their lease (they are counted until then). Idempotent; the
// client stays open.
func (l *Limits) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		l.closed = true
		for _, b := range l.blocks {
			l.giveBackFreeLocked(b)
		}
		started := l.started
		l.mu.Unlock()
		close(l.stop)
		if started {
			<-l.done
		}
	})
	return nil
}
