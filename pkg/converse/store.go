// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
)

// Working-memory layout of conversation <id> (memory/keys.go builds the keys):
//
//	converse/<id>                  the record (Conversation, JSON): memory.ConversationKey
//	converse/<id>/lease            the driving process's token (TTL: the lease): memory.ConversationLeaseKey
//	converse/<id>/sent/<turn>-<n>  set before the n-th send of a turn: memory.ConversationSentKey
//	session converse-<id>          the calls' session (results, call history): memory.ConversationSession
//	session converse-<id>.control  the control log, one turn per command: memory.ConversationControlSession

var idPattern = regexp.MustCompile(`^cv[0-9a-f]{20}$`)

// NewID returns a new conversation id: "cv" and 20 hex digits, safe in
// keys, session ids and routing keys.
func NewID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "cv" + hex.EncodeToString(b[:])
}

// ValidateID reports whether id may name a conversation.
func ValidateID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: conversation id %q must match %s", ErrInvalidCommand, id, idPattern)
	}
	return nil
}

// store reads and writes conversation records.
type store struct {
	mem memory.Memory
	ttl time.Duration
	// bound is how long a failing call of working memory is retried
	// (Options.MemoryRetryBound); log gets a warning at its first failure.
	bound time.Duration
	log   *zap.Logger
}

// retry runs op (what it does, for conversation id) with memory.Retry
// within the store's bound, warning at the first failure.
func (s store) retry(ctx context.Context, what, id string, op func(context.Context) error) error {
	return memory.Retry(ctx, s.bound, op, func(f memory.Failure) {
		if f.First() {
			s.log.Warn("converse: working memory failed; retrying", zap.String("conversation", id),
				zap.String("op", what), zap.Duration("bound", s.bound), zap.Error(f.Err))
		}
	})
}

// load is Load, retried while working memory fails.
func (s store) load(ctx context.Context, id string) (c *Conversation, err error) {
	err = s.retry(ctx, "load", id, func(ctx context.Context) error { c, err = Load(ctx, s.mem, id); return err })
	return c, err
}

// Load returns the record of conversation id from mem: ErrNotFound when
// there is none.
func Load(ctx context.Context, mem memory.Store, id string) (*Conversation, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	key, err := memory.ConversationKey(id)
	if err != nil {
		return nil, fmt.Errorf("converse: load %s: %w", id, err)
	}
	raw, err := mem.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("converse: load %s: %w", id, err)
	}
	var c Conversation
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("converse: decode record of %s: %w", id, err)
	}
	return &c, nil
}

// create stores a new record; it fails if one exists.
func (s store) create(ctx context.Context, c *Conversation) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("converse: encode record of %s: %w", c.ID, err)
	}
	key, err := memory.ConversationKey(c.ID)
	if err != nil {
		return fmt.Errorf("converse: create %s: %w", c.ID, err)
	}
	ok, err := s.mem.SetIfAbsent(ctx, key, raw, s.ttl)
	if err != nil {
		return fmt.Errorf("converse: create %s: %w", c.ID, err)
	}
	if !ok {
		return fmt.Errorf("%w: conversation %s exists", ErrInvalidSpec, c.ID)
	}
	return nil
}

// save writes the record; only the lease holder calls it.
func (s store) save(ctx context.Context, c *Conversation) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("converse: encode record of %s: %w", c.ID, err)
	}
	key, err := memory.ConversationKey(c.ID)
	if err != nil {
		return fmt.Errorf("converse: save %s: %w", c.ID, err)
	}
	if err := s.retry(ctx, "save", c.ID, func(ctx context.Context) error { return s.mem.Set(ctx, key, raw, s.ttl) }); err != nil {
		return fmt.Errorf("converse: save %s: %w", c.ID, err)
	}
	return nil
}

// lease is conversation id's drive lease, held by token.
func (s store) lease(id, token string, ttl time.Duration) (memory.Lease, error) {
	key, err := memory.ConversationLeaseKey(id)
	if err != nil {
		return memory.Lease{}, fmt.Errorf("converse: lease of %s: %w", id, err)
	}
	return memory.Lease{Store: s.mem, Key: key, Owner: token, TTL: ttl}, nil
}

// acquire takes conversation id's lease for token; false when another holds it.
func (s store) acquire(ctx context.Context, id, token string, ttl time.Duration) (bool, error) {
	lease, err := s.lease(id, token, ttl)
	if err != nil {
		return false, err
	}
	var ok bool
	err = s.retry(ctx, "take the lease", id, func(ctx context.Context) (err error) {
		ok, err = lease.Acquire(ctx) // safe to repeat: the same owner takes it again
		return err
	})
	if err != nil {
		return false, fmt.Errorf("converse: %s: %w", id, err)
	}
	return ok, nil
}

// renew extends token's lease (taking it again if it expired untaken);
// ErrLeaseLost when another took it.
func (s store) renew(ctx context.Context, id, token string, ttl time.Duration) error {
	lease, err := s.lease(id, token, ttl)
	if err != nil {
		return err
	}
	ok, err := lease.Renew(ctx)
	if err != nil {
		return fmt.Errorf("converse: %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("%w: %s is driven by another process", ErrLeaseLost, id)
	}
	return nil
}

// release gives token's lease up (best effort: it expires anyway).
func (s store) release(ctx context.Context, id, token string) {
	if lease, err := s.lease(id, token, 0); err == nil {
		_ = lease.Release(ctx)
	}
}

// Driven reports whether a process holds conversation id's lease now.
func Driven(ctx context.Context, mem memory.Store, id string) (bool, error) {
	key, err := memory.ConversationLeaseKey(id)
	if err != nil {
		return false, fmt.Errorf("converse: read the lease of %s: %w", id, err)
	}
	_, err = mem.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("converse: read the lease of %s: %w", id, err)
	}
	return true, nil
}

// claimSend marks the attempt-th send of turn as started; false when a
// process marked it before (it may have sent it).
func (s store) claimSend(ctx context.Context, id string, turn, attempt int, token string) (bool, error) {
	key, err := memory.ConversationSentKey(id, turn, attempt)
	if err != nil {
		return false, fmt.Errorf("converse: mark send %d-%d of %s: %w", turn, attempt, id, err)
	}
	// A retry after an outcome left unknown may find its own mark: false
	// then, and the send is looked for as after a driver died (findSend).
	var ok bool
	err = s.retry(ctx, "mark a send", id, func(ctx context.Context) (err error) {
		ok, err = s.mem.SetIfAbsent(ctx, key, []byte(token), s.ttl)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("converse: mark send %d-%d of %s: %w", turn, attempt, id, err)
	}
	return ok, nil
}
