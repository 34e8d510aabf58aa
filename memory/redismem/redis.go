// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package redismem is a2abus's working memory on Redis (go-redis v9): a single
// server, Sentinel or Cluster. Every call is bounded by Options.Timeout and a
// server that does not answer gives memory.ErrUnavailable, never a hang.
//
// Redis layout, P being Options.KeyPrefix (default "a2abus:"):
//
//	P kv:<key>                 a Store value: a string, with an expiry when it has a TTL
//	P conv:{<session>}:turns   a conversation: a list of Turn JSON (see memory.Turn),
//	                           the turn with Seq n at index n-1
//	P conv:{<session>}:once    AppendTurnOnce ids: a hash of id -> Seq
//	P conv:{<session>}:events  the pub/sub channel announcing each appended Seq
//	P idx:<index>              an index (memory.Indexes): a sorted set of members,
//	                           each scored by its int64 score as a Redis float
//
// The {<session>} hash tag keeps a session's keys in one Cluster slot, so the
// append script may touch them together.
package redismem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
)

// Memory is the Redis memory.Memory. It is safe for concurrent use. Its
// methods are memory.Checked's: arguments are validated there, then the call
// is made on Redis. A write that fails with memory.ErrUnavailable may have
// been applied (SetIfAbsent's marker set, AppendTurn's turn appended);
// AppendTurnOnce and Batch are safe to retry. Batch calls are group-committed:
// those made while a pipeline is on the wire go out together in the next one.
type Memory struct {
	memory.Checked
	b *backend
}

// backend is the Redis client behind Memory; it trusts its arguments (memory.Backend).
type backend struct {
	client goredis.UniversalClient
	opts   Options
	log    *zap.Logger

	closed    atomic.Bool
	mu        sync.Mutex      // orders subs.Add against Close
	root      context.Context // cancelled by Close; ends every subscription
	stop      context.CancelFunc
	subs      sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
	batches   batchGroup // Batch calls waiting for their pipeline
}

var (
	_ memory.Memory  = (*Memory)(nil)
	_ memory.Backend = (*backend)(nil)
)

// New connects to the Redis opts names and pings it; an unreachable server
// gives an error wrapping memory.ErrUnavailable that names the address(es).
// With valid opts it first routes go-redis's own log lines to opts.Logger
// (see Options.Logger).
func New(ctx context.Context, opts Options) (*Memory, error) {
	given := opts.Logger
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	logGoRedisTo(given)
	client, where, err := opts.newClient()
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := client.Ping(pingCtx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("memory/redismem: connect to %s: %w", where, classify(ctx, err))
	}
	root, stop := context.WithCancel(context.Background())
	opts.Logger.Info("redis working memory connected", zap.String("redis", where), zap.String("key_prefix", opts.KeyPrefix))
	b := &backend{client: client, opts: opts, log: opts.Logger, root: root, stop: stop}
	b.batches.flush = b.flush // once: a method value made at each Batch is an allocation a call
	return &Memory{Checked: memory.Check(b), b: b}, nil
}

// Client returns the memory's go-redis client, its key prefix and its
// per-call timeout, for state kept in the same Redis outside the memory
// port (the shared limits of pkg/guard/redislimits). Close closes the client.
func (m *Memory) Client() (client goredis.UniversalClient, keyPrefix string, timeout time.Duration) {
	return m.b.client, m.b.opts.KeyPrefix, m.b.opts.Timeout
}

// Ping checks that Redis answers within the timeout.
func (m *backend) Ping(ctx context.Context) error {
	return m.call(ctx, "ping", func(ctx context.Context) error { return m.client.Ping(ctx).Err() })
}

// Close ends every subscription, waits for them (at most the timeout) and
// closes the connections. It is idempotent; later calls fail with memory.ErrClosed.
func (m *backend) Close() error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closed.Store(true)
		m.stop()
		m.mu.Unlock()
		if !component.WaitWithin(&m.subs, m.opts.Timeout) {
			m.log.Warn("redis working memory: subscriptions still ending after close timeout", zap.Duration("timeout", m.opts.Timeout))
		}
		if err := m.client.Close(); err != nil {
			m.closeErr = fmt.Errorf("memory/redismem: close: %w", err)
		}
	})
	return m.closeErr
}

// call runs fn with ctx bounded by the per-call timeout, after checking that m
// is open, and wraps its error with op and its class (see classify).
func (m *backend) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	if m.closed.Load() {
		return fmt.Errorf("%s: %w", op, memory.ErrClosed)
	}
	callCtx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	if err := fn(callCtx); err != nil {
		return fmt.Errorf("%s: %w", op, classify(ctx, err))
	}
	return nil
}

// classify maps a go-redis error: a missing key to memory.ErrNotFound, a closed
// client to memory.ErrClosed, and — unless the caller's own ctx ended — a
// timeout, a broken connection or a server that cannot serve now to
// memory.ErrUnavailable, and any other error the server answered (OOM,
// NOPERM, MISCONF …) to memory.ErrRefused.
func classify(ctx context.Context, err error) error {
	var reply goredis.Error
	switch {
	case errors.Is(err, goredis.Nil):
		return memory.ErrNotFound
	case errors.Is(err, goredis.ErrClosed):
		return fmt.Errorf("%w: %w", memory.ErrClosed, err)
	case ctx.Err() != nil:
		return err
	case unavailable(err):
		return fmt.Errorf("%w: %w", memory.ErrUnavailable, err)
	case errors.As(err, &reply):
		return fmt.Errorf("%w: %w", memory.ErrRefused, err)
	}
	return err
}

func unavailable(err error) bool {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, goredis.ErrPoolTimeout),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &netErr):
		return true
	}
	return movedOrAsk(err) || goredis.IsLoadingError(err) || goredis.IsReadOnlyError(err) || goredis.IsClusterDownError(err) ||
		goredis.IsTryAgainError(err) || goredis.IsMasterDownError(err) || goredis.IsMaxClientsError(err)
}

// kvKey is the Redis key of Store key.
func (m *backend) kvKey(key string) string { return m.opts.KeyPrefix + "kv:" + key }

// indexKey is the Redis sorted set of index.
func (m *backend) indexKey(index string) string { return m.opts.KeyPrefix + "idx:" + index }

// turnsKey is the Redis list of session's turns.
func (m *backend) turnsKey(session string) string {
	return m.opts.KeyPrefix + "conv:{" + session + "}:turns"
}

// onceKey is the Redis hash of session's AppendTurnOnce ids.
func (m *backend) onceKey(session string) string {
	return m.opts.KeyPrefix + "conv:{" + session + "}:once"
}

// eventsChannel is the pub/sub channel announcing session's appends.
func (m *backend) eventsChannel(session string) string {
	return m.opts.KeyPrefix + "conv:{" + session + "}:events"
}
