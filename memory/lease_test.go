// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/memory/redismem"
)

// One owner at a time: a second owner is refused while the first holds the
// lease, the holder acquires and renews again, a release by another owner
// changes nothing, and after the holder's release (or its TTL) another
// owner takes it; a renewal finds it lost once another holds it.
func TestLeaseOneOwnerAtATime(t *testing.T) {
	ctx := context.Background()
	m := inmem.New(inmem.Options{})
	defer m.Close()
	a := memory.Lease{Store: m, Key: "lease/x", Owner: "a", TTL: time.Minute}
	b := a
	b.Owner = "b"
	for _, step := range []struct {
		what string
		do   func() (bool, error)
		want bool
	}{
		{"a takes it", func() (bool, error) { return a.Acquire(ctx) }, true},
		{"b is refused", func() (bool, error) { return b.Acquire(ctx) }, false},
		{"a takes it again (its own)", func() (bool, error) { return a.Acquire(ctx) }, true},
		{"a renews", func() (bool, error) { return a.Renew(ctx) }, true},
		{"b cannot renew a's", func() (bool, error) { return b.Renew(ctx) }, false},
		{"b's release leaves it to a", func() (bool, error) { err := b.Release(ctx); ok, _ := a.Renew(ctx); return ok, err }, true},
		{"after a's release b takes it", func() (bool, error) {
			if err := a.Release(ctx); err != nil {
				return false, err
			}
			return b.Acquire(ctx)
		}, true},
		{"a's renewal finds it lost", func() (bool, error) { return a.Renew(ctx) }, false},
	} {
		got, err := step.do()
		if err != nil || got != step.want {
			t.Fatalf("%s: %v, %v; want %v", step.what, got, err, step.want)
		}
	}
	if holder, held, err := a.Holder(ctx); err != nil || !held || holder != "b" {
		t.Fatalf("holder = %q, %v, %v; want b", holder, held, err)
	}
	// Expired and untaken: the holder's renewal takes it again.
	short := memory.Lease{Store: m, Key: "lease/y", Owner: "c", TTL: 20 * time.Millisecond}
	if ok, err := short.Acquire(ctx); !ok || err != nil {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	testenv.Eventually(t, "the lease expires", func() bool { _, held, err := short.Holder(ctx); return err == nil && !held })
	if ok, err := short.Renew(ctx); !ok || err != nil {
		t.Fatalf("renew after expiry, untaken: %v, %v; want taken again", ok, err)
	}
}

// lostBetween is the Store of a holder whose lease another owner takes
// behind its back: the first time the holder reads or writes the lease key,
// take runs — before a write, after a read — as if the holder stalled past
// its TTL there. A renewal or release made of a read then a write is caught
// between the two.
type lostBetween struct {
	memory.Store
	key   string
	take  func()
	taken bool
}

func (s *lostBetween) intercept(key string) {
	if key == s.key && !s.taken {
		s.taken = true
		s.take()
	}
}

func (s *lostBetween) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := s.Store.Get(ctx, key)
	s.intercept(key)
	return v, err
}

func (s *lostBetween) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s.intercept(key)
	return s.Store.Set(ctx, key, value, ttl)
}

func (s *lostBetween) SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	s.intercept(key)
	return s.Store.SetIfAbsent(ctx, key, value, ttl)
}

func (s *lostBetween) Delete(ctx context.Context, key string) error {
	s.intercept(key)
	return s.Store.Delete(ctx, key)
}

func (s *lostBetween) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	s.intercept(key)
	return s.Store.CompareAndSet(ctx, key, old, value, ttl)
}

func (s *lostBetween) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	s.intercept(key)
	return s.Store.CompareAndDelete(ctx, key, old)
}

// A holder whose lease expires, and is taken by another owner, in the middle
// of its renewal or release neither overwrites nor deletes the new owner's
// lease: the renewal reports it lost, and the new owner holds it still, with
// its own TTL. On the embedded and the real (Redis) memory.
func TestLeaseLostMidwayIsNotOverwritten(t *testing.T) {
	memories := []struct {
		name string
		open func(t *testing.T) memory.Memory
	}{
		{"inmem", func(t *testing.T) memory.Memory {
			m := inmem.New(inmem.Options{})
			t.Cleanup(func() { _ = m.Close() })
			return m
		}},
		{"redis", func(t *testing.T) memory.Memory {
			m, err := redismem.New(t.Context(), redismem.Options{
				URL: testenv.RedisURL(t), KeyPrefix: "a2abustest:" + strings.ToLower(rand.Text()[:10]) + ":",
			})
			if err != nil {
				t.Fatalf("redis memory: %v", err)
			}
			t.Cleanup(func() { _ = m.Close() })
			return m
		}},
	}
	ops := []struct {
		name string
		do   func(ctx context.Context, a memory.Lease) (bool, error)
	}{
		{"renew", func(ctx context.Context, a memory.Lease) (bool, error) { return a.Renew(ctx) }},
		{"release", func(ctx context.Context, a memory.Lease) (bool, error) {
			return false, a.Release(ctx) // false: a holds nothing after it
		}},
	}
	for _, backend := range memories {
		for _, op := range ops {
			t.Run(backend.name+"/"+op.name, func(t *testing.T) {
				ctx := t.Context()
				m := backend.open(t)
				key := "lease/lost-midway"
				t.Cleanup(func() { _ = m.Delete(context.WithoutCancel(ctx), key) })
				a := memory.Lease{Store: m, Key: key, Owner: "a", TTL: time.Minute}
				b := a
				b.Owner, b.TTL = "b", time.Hour
				if ok, err := a.Acquire(ctx); !ok || err != nil {
					t.Fatalf("a acquires: %v, %v", ok, err)
				}
				lost := &lostBetween{Store: m, key: key, take: func() {
					// a's lease expires (shortened to 1ms), then b takes it.
					if err := m.Set(ctx, key, []byte("a"), time.Millisecond); err != nil {
						t.Fatalf("shorten a's lease: %v", err)
					}
					testenv.Eventually(t, "a's lease expires", func() bool { _, held, err := b.Holder(ctx); return err == nil && !held })
					if ok, err := b.Acquire(ctx); !ok || err != nil {
						t.Fatalf("b acquires the expired lease: %v, %v", ok, err)
					}
				}}
				a.Store = lost // from now on a's calls meet b midway
				ok, err := op.do(ctx, a)
				if !lost.taken {
					t.Fatal("the lease was never taken from a midway")
				}
				if err != nil || ok {
					t.Fatalf("a's %s after b took the lease: %v, %v; want false (lost)", op.name, ok, err)
				}
				if holder, held, err := b.Holder(ctx); err != nil || !held || holder != "b" {
					t.Fatalf("after a's %s: holder %q, %v, %v; want b", op.name, holder, held, err)
				}
				if ttl, err := m.TTL(ctx, key); err != nil || ttl <= a.TTL {
					t.Fatalf("after a's %s: ttl %v, %v; want b's (over a's %v)", op.name, ttl, err, a.TTL)
				}
			})
		}
	}
}
