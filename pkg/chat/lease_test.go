// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/chat"
)

// leaseWrites notes the writes of one lease key, in order, and delays its
// renewals (CompareAndSet), so that one is nearly always in flight during a
// run. It stores the lease for longer than its TTL (held), so that the
// lease ends by its release, never by expiring unnoticed.
type leaseWrites struct {
	chat.Memory
	key    string
	delay  time.Duration
	held   time.Duration
	writes testenv.Events
}

func (l *leaseWrites) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if key != l.key {
		return l.Memory.CompareAndSet(ctx, key, old, value, ttl)
	}
	time.Sleep(l.delay)
	ok, err := l.Memory.CompareAndSet(ctx, key, old, value, l.held)
	if ok {
		l.writes.Add("renew")
	}
	return ok, err
}

func (l *leaseWrites) SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if key != l.key {
		return l.Memory.SetIfAbsent(ctx, key, value, ttl)
	}
	ok, err := l.Memory.SetIfAbsent(ctx, key, value, l.held)
	if ok {
		l.writes.Add("take")
	}
	return ok, err
}

func (l *leaseWrites) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	ok, err := l.Memory.CompareAndDelete(ctx, key, old)
	if ok && key == l.key {
		l.writes.Add("release")
	}
	return ok, err
}

// A run that ends gives the session's lease up for good: its renewal is
// over before the release, so none in flight takes the lease again (which
// would hold off another replica's run for a whole TTL).
func TestRunEndReleasesTheLeaseAfterItsLastRenewal(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.NewFunc(t, func(llmtest.Request) llmtest.Reply {
			time.Sleep(100 * time.Millisecond) // past the first renewals
			return llmtest.Reply{Content: "an answer"}
		})
		keys, err := memory.ChatStateKeys(r.session)
		if err != nil {
			t.Fatal(err)
		}
		lw := &leaseWrites{key: keys.Lease, delay: 60 * time.Millisecond, held: time.Minute}
		s := r.open(t, srv, r.caller, func(o *chat.Options) {
			lw.Memory = o.Memory
			o.Memory, o.LeaseTTL = lw, 90*time.Millisecond // renewed every 30ms, each renewal taking 60ms
		})
		for i := range 3 {
			user, err := s.Send(ctx, "hello", nil)
			if err != nil {
				t.Fatal(err)
			}
			if settled, err := s.Wait(ctx, user.Seq); err != nil || settled.Err != nil {
				t.Fatalf("turn %d: settled %+v, %v", i, settled, err)
			}
			time.Sleep(200 * time.Millisecond) // the release, and a renewal that would follow it
			if writes := lw.writes.List(); len(writes) == 0 || writes[len(writes)-1] != "release" {
				t.Fatalf("turn %d: the lease's writes %q do not end with its release", i, writes)
			}
		}
	})
}
