// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package redislimits keeps the call guard's limits in Redis, so that every
// process of a caller together stays under one limit (guard.Shared):
//
//   - calls in flight: a sorted set of slot ids per caller, each scored by
//     when its lease ends; the process holding a slot renews it every third
//     of the lease while its call runs, so the slots of a killed process
//     free themselves within one lease;
//   - rate: the GCRA of github.com/go-redis/redis_rate per (caller, target);
//   - circuit breaker: a hash per target of its consecutive failures, when
//     it opened and until when a probe runs, so that the failures one
//     process sees open the circuit for all.
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
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
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
	// Logger receives the background writer's failures; nil means no logging.
	Logger *zap.Logger
}

// Limits is guard.Shared on Redis. It is safe for concurrent use. A
// background goroutine, started with the first slot taken and stopped by
// Close, renews the slots this process holds and writes the releases and
// the circuit reports, so that finishing a call costs no round trip (but
// for a circuit's probe, whose outcome is written at once). A release not
// written yet is made by this process's next Enter of the caller first.
type Limits struct {
	client  goredis.UniversalClient
	prefix  string
	lease   time.Duration
	timeout time.Duration
	log     *zap.Logger
	rate    *redis_rate.Limiter
	replica string // this process's slot id prefix
	seq     atomic.Uint64

	mu       sync.Mutex
	held     map[string]map[string]struct{} // slot key -> slot ids this process holds
	released map[string]map[string]struct{} // slot key -> slot ids released, not yet known removed
	started  bool
	closed   bool

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
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id) // never fails (crypto/rand)
	return &Limits{client: opts.Client, prefix: opts.KeyPrefix + "limits:", lease: opts.Lease, timeout: opts.Timeout,
		log: opts.Logger.Named("redislimits"), rate: redis_rate.NewLimiter(opts.Client), replica: hex.EncodeToString(id),
		held: map[string]map[string]struct{}{}, released: map[string]map[string]struct{}{}, wake: make(chan struct{}, 1), queue: make(chan func(context.Context) error, queueLen),
		stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// bounded returns a context bounded by the per-call timeout.
func (l *Limits) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), l.timeout)
}

// takeSlot drops the expired slots of KEYS[1] and the released ones
// ARGV[4..], then adds ARGV[3] with a lease of ARGV[2] ms if fewer than
// ARGV[1] remain: 1 taken, 0 all taken.
var takeSlot = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 4, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// renewSlots sets the lease of the slots ARGV[2..] of KEYS[1] to ARGV[1]
// ms from now. A slot no longer there is not added again (XX): it may have
// been released meanwhile (by a take of this process), and a slot lost to
// an outage is not counted again.
var renewSlots = goredis.NewScript(`
local t = redis.call('TIME')
local until_ = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', until_, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #ARGV - 1
`)

// slotCall prepares the takeSlot of one of max slots of caller: its key,
// the slot id and the script's arguments, this process's releases of the
// caller not yet written first.
func (l *Limits) slotCall(caller string, max int) (key, slot string, args []any, err error) {
	k, err := memory.InFlightSlotsKey(caller)
	if err != nil {
		return "", "", nil, fmt.Errorf("redislimits: take a slot: %w: %w", guard.ErrNotShared, err)
	}
	key = l.prefix + k
	slot = l.replica + "-" + strconv.FormatUint(l.seq.Add(1), 36)
	args = []any{max, l.lease.Milliseconds(), slot}
	l.mu.Lock()
	for gone := range l.released[key] { // even those the writer is removing: it may not have yet
		args = append(args, gone)
	}
	l.mu.Unlock()
	return key, slot, args, nil
}

// removed forgets the released slots that a script or the writer removed
// from Redis (args from the 4th on, as slotCall put them).
func (l *Limits) removed(key string, slots []any) {
	if len(slots) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range slots {
		delete(l.released[key], s.(string))
	}
	if len(l.released[key]) == 0 {
		delete(l.released, key)
	}
}

// slotTaken holds the slot takeSlot took and returns its release.
func (l *Limits) slotTaken(key, slot string) func() {
	l.hold(key, slot)
	var once sync.Once
	return func() { once.Do(func() { l.release(key, slot) }) }
}

// hold records a slot to renew and starts the writer with the first one.
func (l *Limits) hold(key, slot string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key] == nil {
		l.held[key] = map[string]struct{}{}
	}
	l.held[key][slot] = struct{}{}
	l.startLocked()
}

// startLocked starts the writer once, unless Limits is closed. l.mu is held.
func (l *Limits) startLocked() {
	if !l.started && !l.closed {
		l.started = true
		go l.write()
	}
}

// release stops renewing a slot and hands its removal to the writer, and
// to this process's next take of the same caller until it is known done:
// a call that follows one that finished is never refused for the slot the
// finished one held.
func (l *Limits) release(key, slot string) {
	l.mu.Lock()
	delete(l.held[key], slot)
	if len(l.held[key]) == 0 {
		delete(l.held, key)
	}
	if l.released[key] == nil {
		l.released[key] = map[string]struct{}{}
	}
	l.released[key][slot] = struct{}{}
	l.startLocked()
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // the writer is woken already
	}
}

// writeReleases removes the released slots from Redis, in one pipeline.
func (l *Limits) writeReleases(ctx context.Context) error {
	l.mu.Lock()
	batch := make(map[string][]any, len(l.released))
	for key, slots := range l.released {
		for s := range slots {
			batch[key] = append(batch[key], s)
		}
	}
	l.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	pipe := l.client.Pipeline()
	for key, members := range batch {
		pipe.ZRem(ctx, key, members...)
	}
	if _, err := pipe.Exec(ctx); err != nil { // kept: the next write or take removes them, else their lease ends
		return fmt.Errorf("release %d callers' slots: %w", len(batch), err)
	}
	for key, members := range batch {
		l.removed(key, members)
	}
	return nil
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

// write renews the held slots every third of the lease and runs the
// queued writes, until Close.
func (l *Limits) write() {
	defer close(l.done)
	tick := time.NewTicker(l.lease / 3)
	defer tick.Stop()
	failing := false
	report := func(err error) {
		if err != nil && !failing {
			l.log.Warn("shared limits: a write failed; the slots free themselves within their lease", zap.Error(err))
		}
		failing = err != nil
	}
	for {
		select {
		case <-l.stop:
			l.drain()
			return
		case <-tick.C:
			ctx, cancel := l.bounded()
			report(errors.Join(l.renew(), l.writeReleases(ctx))) // releases a failed write left
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

// drain makes the queued writes (the releases of calls that finished)
// within one timeout in all.
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

// renew extends the lease of every slot this process holds.
func (l *Limits) renew() error {
	l.mu.Lock()
	batch := make(map[string][]any, len(l.held))
	for key, slots := range l.held {
		args := make([]any, 0, len(slots)+1)
		args = append(args, l.lease.Milliseconds())
		for s := range slots {
			args = append(args, s)
		}
		batch[key] = args
	}
	l.mu.Unlock()
	var errs []error
	for key, args := range batch {
		ctx, cancel := l.bounded()
		if err := renewSlots.Run(ctx, l.client, []string{key}, args...).Err(); err != nil {
			errs = append(errs, fmt.Errorf("renew the slots of %s: %w", key, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}

// TakeToken takes a token of the GCRA of calls from caller to target.
func (l *Limits) TakeToken(caller, target string, rate float64, burst int) (time.Duration, bool, error) {
	k, err := memory.RateKey(caller, target)
	if err != nil {
		return 0, false, fmt.Errorf("redislimits: take a token: %w: %w", guard.ErrNotShared, err)
	}
	ctx, cancel := l.bounded()
	defer cancel()
	res, err := l.rate.Allow(ctx, l.prefix+k, gcra(rate, burst))
	if err != nil {
		return 0, false, fmt.Errorf("redislimits: take a token of %s to %s: %w", caller, target, err)
	}
	if res.Allowed == 0 {
		return res.RetryAfter, false, nil
	}
	return 0, true, nil
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

// Ping checks that Redis answers within the timeout.
func (l *Limits) Ping() error {
	ctx, cancel := l.bounded()
	defer cancel()
	if err := l.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redislimits: ping: %w", err)
	}
	return nil
}

// Close stops the writer, after the queued writes made within one timeout:
// the slots this process still holds are no longer renewed and free
// themselves within their lease (their calls may still be running: they
// are counted until then). Idempotent; the client stays open.
func (l *Limits) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		l.closed = true
		started := l.started
		l.mu.Unlock()
		close(l.stop)
		if started {
			<-l.done
		}
	})
	return nil
}
