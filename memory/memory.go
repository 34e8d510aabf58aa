// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package memory defines a2abus's working memory: a key/value Store with TTLs
// (task results, idempotence markers), Conversations, the ordered turns of
// each session with live subscriptions, and Indexes, sorted sets of members
// by score. Backends live in memory/redismem and memory/inmem; both put their
// store behind Checked, the one place every call's arguments are validated,
// and memory/memorytest is the conformance suite both pass.
//
// Keys are validated (ValidateKey) so that a key can neither collide with
// another built by the key builders nor widen a List pattern. Every key the
// project uses is built in keys.go (ResultKey, SessionPrefix, TaskRecordKey,
// WorkflowRunKey, …), the working-memory schema docs/memory.md tabulates.
package memory

import (
	"context"
	"time"
)

// Store is key/value working memory with TTLs.
type Store interface {
	// Set stores value under key; ttl > 0 expires it, 0 keeps it forever, < 0 is invalid.
	// Setting an existing key replaces its value and its TTL.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value of key, or an error wrapping ErrNotFound naming the key.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetMany returns the values of keys in one round trip, in key order: nil
	// for a key that is missing (or expired). Every key is validated first.
	GetMany(ctx context.Context, keys ...string) ([][]byte, error)
	// TTL returns the remaining time to live of key: 0 when it never expires, ErrNotFound when missing.
	TTL(ctx context.Context, key string) (time.Duration, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the keys starting with prefix, sorted; "" lists all. See ValidatePrefix.
	List(ctx context.Context, prefix string) ([]string, error)
	// SetIfAbsent stores value only if key is missing (or expired) and reports whether it did:
	// the idempotence marker.
	SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// CompareAndSet replaces key's value and TTL with value and ttl (as Set) only if its live value
	// equals old, in one atomic step, and reports whether it did; a missing or expired key is false.
	CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error)
	// CompareAndDelete removes key only if its live value equals old, in one atomic step, and
	// reports whether it did; a missing or expired key is false.
	CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error)
}

// Roles of a conversation turn.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// Turn is one entry of a session's conversation. Its JSON form, as stored by
// memory/redismem, is
//
//	{"seq":1,"role":"user","content":"hi","time":"2025-01-02T03:04:05.123456789Z","meta":{"k":"v"}}
//
// with "meta" omitted when empty.
type Turn struct {
	// Seq is the turn's position in its session, 1 for the first; assigned by AppendTurn.
	Seq int64 `json:"seq"`
	// Role is one of RoleUser, RoleAssistant, RoleSystem and RoleTool.
	Role string `json:"role"`
	// Content is the turn's text.
	Content string `json:"content"`
	// Time is when the turn was appended (UTC); AppendTurn sets it when zero.
	Time time.Time `json:"time"`
	// Meta carries free-form annotations (e.g. the task id a notification is about).
	Meta map[string]string `json:"meta,omitempty"`
}

// Conversations stores each session's turns in order and wakes subscribers.
type Conversations interface {
	// AppendTurn appends t to session, assigning Seq (1, 2, … atomically across
	// processes) and Time when zero, and returns the stored turn. t.Seq must be 0.
	AppendTurn(ctx context.Context, session string, t Turn) (Turn, error)
	// AppendTurnOnce is AppendTurn made idempotent by id (see ValidateOnceID):
	// the first call with id appends t and returns it with true; every later
	// one, from any process, appends nothing and returns the turn stored then
	// with false. Retrying it after ErrUnavailable can therefore never append twice.
	AppendTurnOnce(ctx context.Context, session, id string, t Turn) (Turn, bool, error)
	// Turns returns the turns of session with Seq > afterSeq, oldest first, at
	// most limit of them (limit <= 0: all). An unknown session has no turns.
	Turns(ctx context.Context, session string, afterSeq int64, limit int) ([]Turn, error)
	// SubscribeTurns delivers every turn of session with Seq > afterSeq in order,
	// without gaps or duplicates: first the stored ones, then each new one as it
	// is appended (by any process). The channel closes when ctx is done or the
	// memory is closed.
	SubscribeTurns(ctx context.Context, session string, afterSeq int64) (<-chan Turn, error)
}

// Memory is a Store, Conversations and Indexes, with batched writes, and Close.
type Memory interface {
	Store
	Conversations
	Indexes
	Batcher
	// Ping checks that the backend answers.
	Ping(ctx context.Context) error
	// Close releases the backend and ends all subscriptions; it is idempotent.
	// Every later call fails with ErrClosed.
	Close() error
}
