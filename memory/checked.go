// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"context"
	"fmt"
	"time"
)

// Backend is a Memory as a backend implements it for Checked: its methods are
// called only with arguments Checked accepted (valid keys, prefixes,
// sessions, once ids, turns, TTLs, sequence numbers and index arguments, and
// only valid ops in a Batch), so it does not check them again. It still
// reports ErrClosed, ErrNotFound and ErrUnavailable itself.
type Backend interface{ Memory }

// Checked is a Memory that validates the arguments of every call, then makes
// it on its Backend: the one place the argument rules of Store,
// Conversations, Indexes and Batcher are enforced. A rejected call fails
// with ErrInvalidKey or ErrInvalidArgument naming what was wrong, wrapped
// with the operation ("set: ..."), and never reaches the backend. Backends'
// exported types embed it (see Check).
type Checked struct{ b Backend }

var _ Memory = Checked{}

// Check returns b behind argument validation.
func Check(b Backend) Checked { return Checked{b: b} }

// Set validates key and ttl, then calls the backend's Set.
func (c Checked) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := validKeyTTL(key, ttl); err != nil {
		return fmt.Errorf("set: %w", err)
	}
	return c.b.Set(ctx, key, value, ttl)
}

// SetIfAbsent validates key and ttl, then calls the backend's SetIfAbsent.
func (c Checked) SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := validKeyTTL(key, ttl); err != nil {
		return false, fmt.Errorf("set if absent: %w", err)
	}
	return c.b.SetIfAbsent(ctx, key, value, ttl)
}

// CompareAndSet validates key and ttl, then calls the backend's CompareAndSet.
func (c Checked) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if err := validKeyTTL(key, ttl); err != nil {
		return false, fmt.Errorf("compare and set: %w", err)
	}
	return c.b.CompareAndSet(ctx, key, old, value, ttl)
}

// CompareAndDelete validates key, then calls the backend's CompareAndDelete.
func (c Checked) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	if err := ValidateKey(key); err != nil {
		return false, fmt.Errorf("compare and delete: %w", err)
	}
	return c.b.CompareAndDelete(ctx, key, old)
}

// Get validates key, then calls the backend's Get.
func (c Checked) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidateKey(key); err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	return c.b.Get(ctx, key)
}

// GetMany validates every key, then calls the backend's GetMany.
func (c Checked) GetMany(ctx context.Context, keys ...string) ([][]byte, error) {
	for i, k := range keys {
		if err := ValidateKey(k); err != nil {
			return nil, fmt.Errorf("get many: key %d: %w", i, err)
		}
	}
	return c.b.GetMany(ctx, keys...)
}

// TTL validates key, then calls the backend's TTL.
func (c Checked) TTL(ctx context.Context, key string) (time.Duration, error) {
	if err := ValidateKey(key); err != nil {
		return 0, fmt.Errorf("ttl: %w", err)
	}
	return c.b.TTL(ctx, key)
}

// Delete validates key, then calls the backend's Delete.
func (c Checked) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return c.b.Delete(ctx, key)
}

// List validates prefix, then calls the backend's List.
func (c Checked) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return c.b.List(ctx, prefix)
}

// AppendTurn validates session and t, then calls the backend's AppendTurn.
func (c Checked) AppendTurn(ctx context.Context, session string, t Turn) (Turn, error) {
	if err := validAppend(session, t); err != nil {
		return Turn{}, err
	}
	return c.b.AppendTurn(ctx, session, t)
}

// AppendTurnOnce validates id, session and t, then calls the backend's AppendTurnOnce.
func (c Checked) AppendTurnOnce(ctx context.Context, session, id string, t Turn) (Turn, bool, error) {
	if err := ValidateOnceID(id); err != nil {
		return Turn{}, false, fmt.Errorf("append turn once: %w", err)
	}
	if err := validAppend(session, t); err != nil {
		return Turn{}, false, err
	}
	return c.b.AppendTurnOnce(ctx, session, id, t)
}

// Turns validates session and afterSeq, then calls the backend's Turns.
func (c Checked) Turns(ctx context.Context, session string, afterSeq int64, limit int) ([]Turn, error) {
	if err := validSession(session, afterSeq); err != nil {
		return nil, fmt.Errorf("turns: %w", err)
	}
	return c.b.Turns(ctx, session, afterSeq, limit)
}

// SubscribeTurns validates session and afterSeq, then calls the backend's SubscribeTurns.
func (c Checked) SubscribeTurns(ctx context.Context, session string, afterSeq int64) (<-chan Turn, error) {
	if err := validSession(session, afterSeq); err != nil {
		return nil, fmt.Errorf("subscribe turns: %w", err)
	}
	return c.b.SubscribeTurns(ctx, session, afterSeq)
}

// IndexAdd validates index, member and score, then calls the backend's IndexAdd.
func (c Checked) IndexAdd(ctx context.Context, index, member string, score int64) error {
	if err := ValidateIndexAdd(index, member, score); err != nil {
		return fmt.Errorf("index add: %w", err)
	}
	return c.b.IndexAdd(ctx, index, member, score)
}

// IndexRemove validates index and member, then calls the backend's IndexRemove.
func (c Checked) IndexRemove(ctx context.Context, index, member string) error {
	if err := ValidateIndexRemove(index, member); err != nil {
		return fmt.Errorf("index remove: %w", err)
	}
	return c.b.IndexRemove(ctx, index, member)
}

// IndexRange validates index, then calls the backend's IndexRange.
func (c Checked) IndexRange(ctx context.Context, index string, max int64, limit int) ([]IndexMember, error) {
	if err := ValidateIndex(index); err != nil {
		return nil, fmt.Errorf("index range: %w", err)
	}
	return c.b.IndexRange(ctx, index, max, limit)
}

// IndexScore validates index and member, then calls the backend's IndexScore.
func (c Checked) IndexScore(ctx context.Context, index, member string) (int64, bool, error) {
	if err := ValidateIndexRemove(index, member); err != nil {
		return 0, false, fmt.Errorf("index score: %w", err)
	}
	return c.b.IndexScore(ctx, index, member)
}

// Batch validates every op (ValidateOps), then calls the backend's Batch.
func (c Checked) Batch(ctx context.Context, ops ...Op) ([]OpResult, error) {
	if err := ValidateOps(ops); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	return c.b.Batch(ctx, ops...)
}

// Ping calls the backend's Ping.
func (c Checked) Ping(ctx context.Context) error { return c.b.Ping(ctx) }

// Close calls the backend's Close.
func (c Checked) Close() error { return c.b.Close() }

func validKeyTTL(key string, ttl time.Duration) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	return ValidateTTL(ttl)
}

// validAppend checks the session and turn of an append, the session first.
func validAppend(session string, t Turn) error {
	if err := ValidateSessionID(session); err != nil {
		return fmt.Errorf("append turn: %w", err)
	}
	if err := ValidateTurn(t); err != nil {
		return fmt.Errorf("append turn to %q: %w", session, err)
	}
	return nil
}

func validSession(session string, afterSeq int64) error {
	if err := ValidateSessionID(session); err != nil {
		return err
	}
	return ValidateAfterSeq(afterSeq)
}
