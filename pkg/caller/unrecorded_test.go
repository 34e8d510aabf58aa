// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
)

// appliedButFailed applies the first batch that records a task, then
// reports it failed as unavailable, as a Redis Cluster batch whose ops
// landed on a live primary and on one failing over.
// With down set, every batch after that one fails the same way, unapplied:
// working memory gone for good.
type appliedButFailed struct {
	memory.Memory
	failed atomic.Bool
	down   bool
}

func (m *appliedButFailed) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	unavailable := fmt.Errorf("batch: %w: dial tcp: connection refused", memory.ErrUnavailable)
	if m.down && m.failed.Load() {
		return nil, unavailable
	}
	res, err := m.Memory.Batch(ctx, ops...)
	if err == nil && len(ops) > 0 && strings.HasPrefix(ops[0].Key, "a2a/tasks/") && m.failed.CompareAndSwap(false, true) {
		return nil, unavailable
	}
	return res, err
}

// A task whose record batch failed after landing (in part) is withdrawn
// before Invoke returns: claimed unsent, its record and pending entry
// removed, so that the sweeper never times out — and notifies — a task its
// caller was told was not sent, even when the caller exits at once (the
// cluster soak's Redis Cluster failovers found it).
func TestInvokeWithdrawsATaskWhoseRecordFailed(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	w.mem = &appliedButFailed{Memory: w.Memory}
	c := w.caller(w.N("Primary"), false)
	inv, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Minute})
	if !errors.Is(err, memory.ErrUnavailable) || errors.Is(err, ErrOutcomeUnknown) || inv.TaskID != "" {
		t.Fatalf("Invoke: %+v, %v; want the record's failure, not sent", inv, err)
	}
	pending, err := PendingTasks(ctxT(t), w.Memory, w.N("Primary"), 10)
	if err != nil || len(pending) != 0 {
		t.Fatalf("pending %v, %v; want the task withdrawn before Invoke returned", pending, err)
	}
	keys, err := w.Memory.List(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	var claimed, records int
	for _, k := range keys {
		if strings.HasPrefix(k, "a2a/tasks/") {
			records++
		}
		if strings.HasPrefix(k, "a2a/final/") {
			v, err := w.Memory.Get(ctxT(t), k)
			if err != nil || string(v) != claimUnsent {
				t.Errorf("claim %s = %q, %v; want %q (the sweeper can no longer time it out)", k, v, err, claimUnsent)
			}
			claimed++
		}
	}
	if records != 0 || claimed != 1 {
		t.Errorf("%d records and %d claims left (keys %v), want none and the unsent claim", records, claimed, keys)
	}
}

// A task whose record batch failed, and whose withdrawal working memory
// never answered, is not called "not sent": part of its record may stand,
// and the sweeper time it out. Invoke returns it kept, with
// ErrOutcomeUnknown and its task id.
func TestInvokeKeepsATaskItCouldNotWithdraw(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	w.mem = &appliedButFailed{Memory: w.Memory, down: true}
	c := w.caller(w.N("Primary"), false, func(o *Options) { o.MemoryRetryBound = 300 * time.Millisecond })
	inv, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Minute})
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, memory.ErrUnavailable) || inv.TaskID == "" {
		t.Fatalf("Invoke: %+v, %v; want the task kept (ErrOutcomeUnknown) with its id", inv, err)
	}
	pending, err := PendingTasks(ctxT(t), w.Memory, w.N("Primary"), 10)
	if err != nil || len(pending) != 1 || pending[0] != inv.TaskID {
		t.Errorf("pending %v, %v; want the kept task %s, for the sweeper", pending, err, inv.TaskID)
	}
}

// unsentButFailed applies the claim of a withdrawal and reports it failed
// (a write the primary applied, its replica never acknowledged), and fails
// every read of the claim, while fail is set.
type unsentButFailed struct {
	memory.Memory
	fail atomic.Bool
}

func (m *unsentButFailed) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	res, err := m.Memory.Batch(ctx, ops...)
	if err == nil && m.fail.Load() && (strings.HasPrefix(ops[0].Key, "a2a/tasks/") || string(ops[0].Value) == claimUnsent) {
		return nil, fmt.Errorf("batch: %w: not replicated", memory.ErrUnavailable)
	}
	return res, err
}

func (m *unsentButFailed) Get(ctx context.Context, key string) ([]byte, error) {
	if m.fail.Load() && strings.HasPrefix(key, "a2a/final/") {
		return nil, fmt.Errorf("get: %w: not replicated", memory.ErrUnavailable)
	}
	return m.Memory.Get(ctx, key)
}

// A task whose withdrawal landed although working memory said it failed is
// returned kept, yet has a record and never an outcome (its claim is the
// caller's unsent): Call and Wait end with ErrUnknownTask past its
// deadline instead of waiting for ever, and nothing times it out.
func TestWaitEndsForAKeptTaskWhoseWithdrawalLanded(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	mem := &unsentButFailed{Memory: w.Memory}
	mem.fail.Store(true)
	w.mem = mem
	c := w.caller(w.N("Primary"), true, func(o *Options) { o.MemoryRetryBound = 300 * time.Millisecond })
	inv, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Second})
	if !errors.Is(err, ErrOutcomeUnknown) || inv.TaskID == "" {
		t.Fatalf("Invoke: %+v, %v; want the task kept", inv, err)
	}
	mem.fail.Store(false)
	out, err := c.Wait(ctxT(t), inv.TaskID, nil)
	if !errors.Is(err, ErrUnknownTask) || out != nil {
		t.Fatalf("Wait: %+v, %v; want ErrUnknownTask (withdrawn)", out, err)
	}
	if res, _ := w.Memory.Get(ctxT(t), inv.MemoryKey); res != nil {
		t.Errorf("an outcome was stored for a withdrawn task: %s", res)
	}
}

// waitKeyFailingOnce fails the first read of a task's wait key as unavailable.
type waitKeyFailingOnce struct {
	memory.Memory
	failed atomic.Bool
}

func (m *waitKeyFailingOnce) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasSuffix(key, "/wait") && m.failed.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("get: %w: dial tcp: connection refused", memory.ErrUnavailable)
	}
	return m.Memory.Get(ctx, key)
}

// A Call whose own timeout of its overdue task (no sweeper runs) meets
// working memory failing keeps waiting and ends with the task's TIMEOUT:
// it was sent, so a failover must not turn it into an error (the cluster
// soak counted such calls refused, yet timed out).
func TestCallRidesOutAFailureOfItsOwnTimeout(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	mem := &waitKeyFailingOnce{Memory: w.Memory}
	w.mem = mem
	c := w.caller(w.N("Primary"), false)
	out, err := c.Call(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: 500 * time.Millisecond}, nil)
	if err != nil || out.Result.Error == nil || out.Result.Error.Code != "TIMEOUT" || !mem.failed.Load() {
		t.Fatalf("Call: %+v, %v (failure injected: %v); want its TIMEOUT", out, err, mem.failed.Load())
	}
}
