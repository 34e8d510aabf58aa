// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/guard"
)

// holdTake is a go-redis hook that stands in for a process too starved
// of CPU to read its take's answer: once armed, the first take of slots
// (an EVALSHA pipeline) runs in Redis, then its caller is held until
// resumed; or, lost, its answer is lost (a timeout).
type holdTake struct {
	mu     sync.Mutex
	armed  bool
	lost   bool
	taken  chan struct{} // closed once the held take ran in Redis
	resume chan struct{} // closed by goOn: the held take's caller goes on
	once   sync.Once
}

func newHoldTake() *holdTake {
	return &holdTake{taken: make(chan struct{}), resume: make(chan struct{})}
}

// goOn lets the held take's caller go on.
func (h *holdTake) goOn() { h.once.Do(func() { close(h.resume) }) }

// arm holds the next take; lost: its answer is lost rather than late.
func (h *holdTake) arm(lost bool) {
	h.mu.Lock()
	h.armed, h.lost = true, lost
	h.mu.Unlock()
}

func (h *holdTake) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *holdTake) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }

func (h *holdTake) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		take := len(cmds) > 0 && cmds[0].Name() == "evalsha"
		h.mu.Lock()
		hold, lost := take && h.armed, h.lost
		if hold {
			h.armed = false
		}
		h.mu.Unlock()
		err := next(ctx, cmds)
		if !hold {
			return err
		}
		close(h.taken)
		if !lost {
			<-h.resume
			return err
		}
		for _, c := range cmds {
			c.SetErr(context.DeadlineExceeded)
		}
		return context.DeadlineExceeded
	}
}

// starvedLimits returns Limits on the test Redis whose client holds a
// take when told (hook), with a key prefix of the test's own, the slots'
// lease a minute and a slot idle for a millisecond given back (at the
// writer's next tick).
func starvedLimits(t *testing.T) (*Limits, *holdTake, goredis.UniversalClient, string) {
	t.Helper()
	opt, err := goredis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxRetries = -1
	c := goredis.NewClient(opt)
	hook := newHoldTake()
	c.AddHook(hook)
	t.Cleanup(hook.goOn) // a failed test leaves no take held
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	p := "a2abus-test-limits-busy-" + hex.EncodeToString(b) + ":"
	l, err := New(Options{Client: c, KeyPrefix: p, Lease: time.Minute, IdleReturn: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = l.Close()
		_ = testworld.DeleteKeys(context.Background(), c, p)
		_ = c.Close()
	})
	return l, hook, c, p
}

// enter takes a slot of caller's max on l, which must be granted.
func enter(t *testing.T, l *Limits, caller string, maxInFlight int) guard.Claim {
	t.Helper()
	p, err := l.Enter(caller, "Agent", maxInFlight, 0, 0)
	if err != nil || p.Busy || p.Claim == nil {
		t.Fatalf("a slot of %d with fewer in flight: busy %v, claim %v, %v", maxInFlight, p.Busy, p.Claim, err)
	}
	return p.Claim
}

// writtenBack reports whether caller's block holds n slots and every slot
// this process gave back is removed from Redis (the writer's write done).
func (l *Limits) writtenBack(caller string, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.blocks[caller]
	return b != nil && len(b.held) == n && len(l.released) == 0
}

// TestSlotGivenBackDuringATakeIsNotBusy: a process holds both slots of a
// max of 2 and makes a third call, whose take finds them taken; before
// that call reads the answer (a process starved of CPU under heavy load),
// one of the first two calls finishes, its slot idles and the writer gives
// it back to Redis. The third call then holds the only slot in use but
// one: it gets the slot given back, not BUSY.
func TestSlotGivenBackDuringATakeIsNotBusy(t *testing.T) {
	const maxInFlight = 2
	l, hook, c, p := starvedLimits(t)
	first := enter(t, l, "Cli", maxInFlight)
	enter(t, l, "Cli", maxInFlight) // both slots taken, held by calls
	hook.arm(false)
	answer := make(chan guard.Pass, 1)
	go func() {
		pass, err := l.Enter("Cli", "Agent", maxInFlight, 0, 0)
		if err != nil {
			t.Errorf("the third call: %v", err)
		}
		answer <- pass
	}()
	<-hook.taken // the third call's take ran in Redis: no room
	first.Finish(guard.OutcomeSuccess)
	testenv.Eventually(t, "the finished call's slot given back idle and removed from Redis", func() bool {
		return l.writtenBack("Cli", 1)
	})
	slots := func() int64 {
		t.Helper()
		k, err := memory.InFlightSlotsKey("Cli")
		if err != nil {
			t.Fatal(err)
		}
		return c.ZCard(context.Background(), p+"limits:"+k).Val()
	}
	if n := slots(); n != 1 {
		t.Fatalf("%d slots in Redis, want 1 (the second call's)", n)
	}
	hook.goOn()
	pass := <-answer
	if pass.Busy || pass.Claim == nil {
		t.Fatalf("the third call with one call in flight of a max of %d: busy %v, claim %v, want a slot", maxInFlight, pass.Busy, pass.Claim)
	}
	if n := slots(); n != 2 {
		t.Fatalf("%d slots in Redis, want 2 (the second and third calls')", n)
	}
}

// TestLostTakeLeavesNoSlotCounted: a take whose script ran in Redis but
// whose answer was lost (a timeout under load) added a slot no call
// holds; this process's next takes remove it, so that both slots of a max
// of 2 are there for two calls, not one for the lease (a minute).
func TestLostTakeLeavesNoSlotCounted(t *testing.T) {
	const maxInFlight = 2
	l, hook, _, _ := starvedLimits(t)
	enter(t, l, "Warm", maxInFlight) // the script is loaded: the lost take runs it
	hook.arm(true)
	if p, err := l.Enter("Cli", "Agent", maxInFlight, 0, 0); err == nil {
		t.Fatalf("a take whose answer was lost: busy %v, claim %v, no error", p.Busy, p.Claim)
	}
	<-hook.taken
	enter(t, l, "Cli", maxInFlight)
	enter(t, l, "Cli", maxInFlight)
}
