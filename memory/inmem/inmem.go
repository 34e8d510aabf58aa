// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package inmem is the embedded, in-process working memory: the same
// semantics as memory/redismem (TTLs, ordered conversations, subscriptions, indexes)
// without a server. It is the default when no Redis is configured.
package inmem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
)

// janitorInterval is how often expired keys are removed; they are invisible
// from the instant they expire, the janitor only frees their memory.
const janitorInterval = 30 * time.Second

// Options configures an in-memory working memory; the zero value is ready to use.
type Options struct {
	// Now is the clock; nil means time.Now. Tests inject one to drive expiry.
	Now func() time.Time
	// ConversationTTL, when > 0, expires a conversation (its turns and
	// once ids) that long after its last append, as memory/redismem does; it then
	// starts again at Seq 1. 0 (or less) keeps conversations forever.
	ConversationTTL time.Duration
	// Logger receives lifecycle messages; nil means zap.NewNop().
	Logger *zap.Logger
}

// Memory is the in-memory memory.Memory. It is safe for concurrent use.
// Its methods are memory.Checked's: arguments are validated there, then the
// call is made on the in-process store.
type Memory struct {
	memory.Checked
	b *backend
}

// backend is the store behind Memory; it trusts its arguments (memory.Backend).
type backend struct {
	now     func() time.Time
	log     *zap.Logger
	convTTL time.Duration // 0: conversations never expire

	mu       sync.Mutex
	items    map[string]item
	sessions map[string]*session
	indexes  map[string]map[string]int64 // index -> member -> score; an empty index is removed
	streams  map[string][][]byte         // stream -> its last MaxLen values (OpStreamAdd)
	closed   bool

	done chan struct{}  // closed by Close
	wg   sync.WaitGroup // the janitor and the subscriptions
}

type item struct {
	value   []byte
	expires time.Time // zero: never
}

func (it item) expired(now time.Time) bool {
	return !it.expires.IsZero() && !now.Before(it.expires)
}

var (
	_ memory.Memory  = (*Memory)(nil)
	_ memory.Backend = (*backend)(nil)
)

// New returns an empty in-memory working memory and starts its janitor.
func New(opts Options) *Memory {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	m := &backend{
		now:      opts.Now,
		log:      opts.Logger,
		convTTL:  max(opts.ConversationTTL, 0),
		items:    make(map[string]item),
		sessions: make(map[string]*session),
		indexes:  make(map[string]map[string]int64),
		streams:  make(map[string][][]byte),
		done:     make(chan struct{}),
	}
	m.wg.Add(1)
	go m.janitor()
	return &Memory{Checked: memory.Check(m), b: m}
}

// Ping reports ErrClosed after Close, else nil.
func (m *backend) Ping(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.check("ping")
}

// Close ends the janitor and every subscription and waits for them; it is idempotent.
func (m *backend) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.done)
	m.mu.Unlock()
	m.wg.Wait()
	m.log.Debug("in-memory working memory closed")
	return nil
}

// Set stores a copy of value under key with ttl (0: no expiry).
func (m *backend) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("set %q", key); err != nil {
		return err
	}
	m.items[key] = m.newItem(value, ttl)
	return nil
}

// SetIfAbsent stores a copy of value under key unless a live value is there; it reports whether it did.
func (m *backend) SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("set if absent %q", key); err != nil {
		return false, err
	}
	if _, ok := m.live(key); ok {
		return false, nil
	}
	m.items[key] = m.newItem(value, ttl)
	return true, nil
}

// CompareAndSet stores a copy of value under key with ttl if its live value equals old; it reports whether it did.
func (m *backend) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("compare and set %q", key); err != nil {
		return false, err
	}
	if it, ok := m.live(key); !ok || !slices.Equal(it.value, old) {
		return false, nil
	}
	m.items[key] = m.newItem(value, ttl)
	return true, nil
}

// CompareAndDelete removes key if its live value equals old; it reports whether it did.
func (m *backend) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("compare and delete %q", key); err != nil {
		return false, err
	}
	if it, ok := m.live(key); !ok || !slices.Equal(it.value, old) {
		return false, nil
	}
	delete(m.items, key)
	return true, nil
}

// Get returns a copy of the value of key.
func (m *backend) Get(ctx context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("get %q", key); err != nil {
		return nil, err
	}
	it, ok := m.live(key)
	if !ok {
		return nil, fmt.Errorf("get %q: %w", key, memory.ErrNotFound)
	}
	return slices.Clone(it.value), nil
}

// GetMany returns copies of the values of keys, nil for a missing one.
func (m *backend) GetMany(ctx context.Context, keys ...string) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("get many"); err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if it, ok := m.live(k); ok {
			out[i] = slices.Clone(it.value)
			if out[i] == nil {
				out[i] = []byte{}
			}
		}
	}
	return out, nil
}

// TTL returns the remaining time to live of key (0: no expiry).
func (m *backend) TTL(ctx context.Context, key string) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("ttl %q", key); err != nil {
		return 0, err
	}
	it, ok := m.live(key)
	switch {
	case !ok:
		return 0, fmt.Errorf("ttl %q: %w", key, memory.ErrNotFound)
	case it.expires.IsZero():
		return 0, nil
	}
	return it.expires.Sub(m.now()), nil
}

// Delete removes key; a missing key is not an error.
func (m *backend) Delete(ctx context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("delete %q", key); err != nil {
		return err
	}
	delete(m.items, key)
	return nil
}

// List returns the live keys starting with prefix, sorted.
func (m *backend) List(ctx context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("list %q", prefix); err != nil {
		return nil, err
	}
	now := m.now()
	keys := []string{}
	for k, it := range m.items {
		if strings.HasPrefix(k, prefix) && !it.expired(now) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// check returns ErrClosed after Close, wrapped with the operation (format
// and its subjects, formatted only then). m.mu must be held.
func (m *backend) check(format string, subjects ...string) error {
	if !m.closed {
		return nil // the operation's name is formatted only for the error
	}
	args := make([]any, len(subjects))
	for i, s := range subjects {
		args[i] = s
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), memory.ErrClosed)
}

// live returns the unexpired item of key, removing an expired one. m.mu must be held.
func (m *backend) live(key string) (item, bool) {
	it, ok := m.items[key]
	if ok && it.expired(m.now()) {
		delete(m.items, key)
		return item{}, false
	}
	return it, ok
}

func (m *backend) newItem(value []byte, ttl time.Duration) item {
	it := item{value: slices.Clone(value)}
	if it.value == nil {
		it.value = []byte{}
	}
	if ttl > 0 {
		it.expires = m.now().Add(ttl)
	}
	return it
}

// janitor sweeps every janitorInterval until Close.
func (m *backend) janitor() {
	defer m.wg.Done()
	component.Every(m.done, janitorInterval, m.sweep)
}

// sweep removes every expired key and conversation.
func (m *backend) sweep() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, it := range m.items {
		if it.expired(now) {
			delete(m.items, k)
		}
	}
	if m.convTTL == 0 {
		return // no conversation expires
	}
	for id, s := range m.sessions {
		if s.expired(now) {
			m.dropSession(id, s)
		}
	}
}
