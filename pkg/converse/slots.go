// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
)

// A local agent's slots bound its conversations across every process that
// shares working memory (the protocol's per-profile channel rules):
//
//	converse-local/<agent>/prompt      its one draft request in flight: memory.LocalPromptKey
//	converse-local/<agent>/shared/<i>  its shared calls in flight, i < MaxSharedCalls: memory.LocalSharedCallKey
//
// Each is a memory.Lease taken by the driver that makes the call, renewed
// every third of Options.LeaseTTL while the call is in flight and deleted
// when its outcome is in; a process that dies frees its slots when the TTL
// runs out.

// slot is one lease a driver holds.
type slot struct {
	lease memory.Lease
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// slotPoll is how often a driver that waits for a slot tries again (a
// control wakes it sooner).
func (o *Orchestrator) slotPoll() time.Duration {
	return max(min(o.opts.PollInterval, 250*time.Millisecond), 10*time.Millisecond)
}

// promptKeys is the key of local's prompt lock.
func promptKeys(local string, _ int) ([]string, error) {
	k, err := memory.LocalPromptKey(local)
	if err != nil {
		return nil, fmt.Errorf("converse: prompt lock of %s: %w", local, err)
	}
	return []string{k}, nil
}

// sharedKeys are the keys of local's n shared-call slots.
func sharedKeys(local string, n int) ([]string, error) {
	keys := make([]string, n)
	for i := range keys {
		k, err := memory.LocalSharedCallKey(local, i)
		if err != nil {
			return nil, fmt.Errorf("converse: shared-call slot of %s: %w", local, err)
		}
		keys[i] = k
	}
	return keys, nil
}

// take takes the first free lease of keys for token and keeps it renewed
// until release; nil when all are held.
func (o *Orchestrator) take(ctx context.Context, conv string, keys []string, token string) (*slot, error) {
	for _, k := range keys {
		l := memory.Lease{Store: o.opts.Memory, Key: k, Owner: token, TTL: o.opts.LeaseTTL}
		var ok bool
		err := o.st.retry(ctx, "take a slot", conv, func(ctx context.Context) (err error) {
			ok, err = l.Acquire(ctx)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("converse: %s: %w", conv, err)
		}
		if ok {
			s := &slot{lease: l}
			rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			s.stop = cancel
			s.wg.Go(func() { o.renewSlot(rctx, conv, l) })
			return s, nil
		}
	}
	return nil, nil
}

// renewSlot renews l every third of its TTL until ctx ends. A lost slot is
// logged: the call in flight goes on, and its owner releases nothing.
func (o *Orchestrator) renewSlot(ctx context.Context, conv string, l memory.Lease) {
	t := time.NewTicker(l.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := l.Renew(ctx)
		if err == nil && !ok {
			o.log.Warn("converse: a slot was taken by another process (not renewed in time)",
				zap.String("conversation", conv), zap.String("key", l.Key))
			return
		}
	}
}

// release stops renewing s and deletes its lease (best effort: it expires
// anyway). Safe on nil and twice.
func (s *slot) release(ctx context.Context) {
	if s == nil || s.stop == nil {
		return
	}
	s.stop()
	s.wg.Wait()
	s.stop = nil
	_ = s.lease.Release(context.WithoutCancel(ctx))
}

// hold takes a slot of the local agent (keysOf(local, n) are its leases)
// for the step about to call, or — all held — announces the wait (why)
// once and pauses a little: ok is false and the step runs again from the
// driver's loop, which applies controls and limits meanwhile.
func (d *driver) hold(ctx context.Context, keysOf func(string, int) ([]string, error), n int, why string) (s *slot, ok bool, err error) {
	keys, err := keysOf(d.c.Spec.Local, n)
	if err != nil {
		return nil, false, err
	}
	s, err = d.o.take(ctx, d.c.ID, keys, d.o.opts.InstanceID+"/"+d.c.ID)
	if err != nil || s != nil {
		d.waiting = ""
		return s, s != nil, err
	}
	if d.waiting != why {
		d.waiting = why
		d.emit(EventWait, why, "")
		if err := d.save(ctx); err != nil {
			return nil, false, err
		}
	}
	return nil, false, d.pause(ctx, d.o.slotPoll())
}
