// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Lease is the right of one owner to do something alone — run a session's
// model, drive a conversation, run a workflow — kept at Key in a Store: taken
// with SetIfAbsent and a TTL, renewed while the work lasts, deleted when it
// ends. A holder that stalls past the TTL loses it; the renewals tell it so.
// Renewal and release are each one atomic step (CompareAndSet,
// CompareAndDelete on the Owner), so a holder whose lease expired can
// neither extend nor delete the lease another owner took since. The TTL
// still bounds how long a stalled holder may go on unaware: work that must
// never be done twice needs its own once-marker besides.
type Lease struct {
	Store Store
	Key   string
	Owner string
	TTL   time.Duration
}

// Acquire takes the lease when no one holds it, and reports true as well
// when this owner holds it already.
func (l Lease) Acquire(ctx context.Context) (bool, error) {
	ok, err := l.Store.SetIfAbsent(ctx, l.Key, []byte(l.Owner), l.TTL)
	if err != nil {
		return false, fmt.Errorf("take lease %q: %w", l.Key, err)
	}
	if ok {
		return true, nil
	}
	holder, held, err := l.Holder(ctx)
	return held && holder == l.Owner, err
}

// Renew extends the lease this owner holds (CompareAndSet from Owner to
// Owner with TTL), or takes it again when it expired and nobody took it;
// false when another owner holds it.
func (l Lease) Renew(ctx context.Context) (bool, error) {
	owner := []byte(l.Owner)
	ok, err := l.Store.CompareAndSet(ctx, l.Key, owner, owner, l.TTL)
	switch {
	case err != nil:
		return false, fmt.Errorf("renew lease %q: %w", l.Key, err)
	case ok:
		return true, nil
	}
	// Not ours now: missing (take it again, atomically) or another's
	// (Acquire's SetIfAbsent refuses, and its read tells who holds it).
	return l.Acquire(ctx)
}

// Release deletes the lease if this owner holds it (CompareAndDelete).
func (l Lease) Release(ctx context.Context) error {
	if _, err := l.Store.CompareAndDelete(ctx, l.Key, []byte(l.Owner)); err != nil {
		return fmt.Errorf("release lease %q: %w", l.Key, err)
	}
	return nil
}

// Holder returns who holds the lease; held is false when nobody does.
func (l Lease) Holder(ctx context.Context) (holder string, held bool, err error) {
	v, err := l.Store.Get(ctx, l.Key)
	if errors.Is(err, ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read lease %q: %w", l.Key, err)
	}
	return string(v), true, nil
}
