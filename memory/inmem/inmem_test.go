// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem_test

import (
	"errors"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/memory/memorytest"
)

func newMemory(t *testing.T) memory.Memory {
	m := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestConformance(t *testing.T) { memorytest.Run(t, newMemory) }

func TestConversationTTLConformance(t *testing.T) {
	t.Parallel()
	memorytest.RunConversationTTL(t, func(t *testing.T, ttl time.Duration) memory.Memory {
		m := inmem.New(inmem.Options{ConversationTTL: ttl})
		t.Cleanup(func() { _ = m.Close() })
		return m
	})
}

// clock is a manual clock for expiry tests.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func TestInjectedClockDrivesExpiry(t *testing.T) {
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := inmem.New(inmem.Options{Now: c.Now})
	defer m.Close()
	ctx := t.Context()
	if err := m.Set(ctx, "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	c.now = c.now.Add(40 * time.Second)
	if ttl, err := m.TTL(ctx, "k"); err != nil || ttl != 20*time.Second {
		t.Fatalf("ttl after 40s of 1m = %v, %v; want 20s", ttl, err)
	}
	c.now = c.now.Add(20 * time.Second)
	if _, err := m.Get(ctx, "k"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get at the expiry instant: %v, want ErrNotFound", err)
	}
	if keys, _ := m.List(ctx, ""); len(keys) != 0 {
		t.Fatalf("expired key listed: %q", keys)
	}
}

func TestSweepRemovesOnlyExpiredKeys(t *testing.T) {
	c := &clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := inmem.New(inmem.Options{Now: c.Now})
	defer m.Close()
	ctx := t.Context()
	for key, ttl := range map[string]time.Duration{"short": time.Second, "long": time.Hour, "forever": 0} {
		if err := m.Set(ctx, key, []byte("v"), ttl); err != nil {
			t.Fatal(err)
		}
	}
	c.now = c.now.Add(time.Minute)
	m.Sweep()
	if n := m.Len(); n != 2 {
		t.Fatalf("%d items after a sweep, want 2 (the expired one removed, the live ones kept)", n)
	}
	if _, err := m.Get(ctx, "long"); err != nil {
		t.Fatalf("live key removed: %v", err)
	}
}

// TestConversationTTLWithClock: with an injected clock, a conversation lives
// exactly ConversationTTL after its last append, a sweep frees it, and with
// no ConversationTTL it is kept forever.
func TestConversationTTLWithClock(t *testing.T) {
	c := testenv.NewClock()
	m := inmem.New(inmem.Options{Now: c.Now, ConversationTTL: time.Hour})
	defer m.Close()
	ctx := t.Context()
	if _, _, err := m.AppendTurnOnce(ctx, "s", "once", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	c.Advance(59 * time.Minute)
	if _, err := m.AppendTurn(ctx, "s", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	c.Advance(59 * time.Minute) // 1h58m after the first append, 59m after the last
	if turns, _ := m.Turns(ctx, "s", 0, 0); len(turns) != 2 {
		t.Fatalf("59m after the last append: %d turns, want 2", len(turns))
	}
	c.Advance(time.Minute)
	if turns, _ := m.Turns(ctx, "s", 0, 0); len(turns) != 0 {
		t.Fatalf("1h after the last append: %d turns, want none", len(turns))
	}
	if turn, ok, err := m.AppendTurnOnce(ctx, "s", "once", memory.Turn{Role: memory.RoleUser}); err != nil || !ok || turn.Seq != 1 {
		t.Fatalf("append once after expiry = seq %d, %v, %v; want seq 1 appended", turn.Seq, ok, err)
	}
	if _, err := m.AppendTurn(ctx, "other", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	m.Sweep()
	if n := m.Sessions(); n != 0 {
		t.Fatalf("%d conversations after a sweep past their TTL, want 0", n)
	}

	forever := inmem.New(inmem.Options{Now: c.Now})
	defer forever.Close()
	if _, err := forever.AppendTurn(ctx, "s", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	c.Advance(100 * 365 * 24 * time.Hour)
	forever.Sweep()
	if turns, _ := forever.Turns(ctx, "s", 0, 0); len(turns) != 1 {
		t.Fatalf("without ConversationTTL, %d turns after a century, want 1", len(turns))
	}
}

// TestSubscriptionOutlivesExpiry: a subscription on a conversation that
// expires is woken, not leaked, and sees the turns of the conversation that
// replaces it once their Seq passes the last one it delivered.
func TestSubscriptionOutlivesExpiry(t *testing.T) {
	c := testenv.NewClock()
	m := inmem.New(inmem.Options{Now: c.Now, ConversationTTL: time.Minute})
	defer m.Close()
	ctx := t.Context()
	ch, err := m.SubscribeTurns(ctx, "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendTurn(ctx, "s", memory.Turn{Role: memory.RoleUser, Content: "old"}); err != nil {
		t.Fatal(err)
	}
	if got := memorytest.Recv(t, ch); got.Seq != 1 || got.Content != "old" {
		t.Fatalf("received %+v, want the old turn", got)
	}
	c.Advance(time.Minute)
	m.Sweep()
	for _, content := range []string{"new 1", "new 2"} {
		if _, err := m.AppendTurn(ctx, "s", memory.Turn{Role: memory.RoleUser, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if got := memorytest.Recv(t, ch); got.Seq != 2 || got.Content != "new 2" {
		t.Fatalf("received %+v, want seq 2 of the new conversation", got)
	}
}

func TestStreamAddKeepsTheLast(t *testing.T) {
	m := inmem.New(inmem.Options{})
	defer m.Close()
	for i := range 5 {
		if _, err := m.Batch(t.Context(), memory.StreamAddOp("audit/stream", []byte{byte('a' + i)}, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Stream("audit/stream"); len(got) != 3 || string(got[0]) != "c" || string(got[2]) != "e" {
		t.Fatalf("stream = %q, want the last 3: c d e", got)
	}
	if _, err := m.Batch(t.Context(), memory.StreamAddOp("audit/stream", []byte("x"), 0)); !errors.Is(err, memory.ErrInvalidArgument) {
		t.Fatalf("MaxLen 0 = %v, want ErrInvalidArgument", err)
	}
}
