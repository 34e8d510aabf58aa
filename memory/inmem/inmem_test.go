package inmem_test

import (
	"errors"
	"testing"
	"time"

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
