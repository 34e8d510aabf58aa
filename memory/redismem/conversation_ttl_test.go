// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/memorytest"
)

func TestConversationTTLConformance(t *testing.T) {
	t.Parallel()
	memorytest.RunConversationTTL(t, func(t *testing.T, ttl time.Duration) memory.Memory {
		opts := testOptions(t)
		opts.ConversationTTL = ttl
		return open(t, opts)
	})
}

// TestBatchAppendRefreshesConversationTTL: an AppendTurnOnceOp in a batch
// sets the TTL of the session's turns list and once hash again, both to the
// full ConversationTTL.
func TestBatchAppendRefreshesConversationTTL(t *testing.T) {
	const ttl = time.Hour
	opts := testOptions(t)
	opts.ConversationTTL = ttl
	m, raw := open(t, opts), rawClient(t)
	ctx := t.Context()
	session := "s-" + randomID(t)
	keys := []string{opts.KeyPrefix + "conv:{" + session + "}:turns", opts.KeyPrefix + "conv:{" + session + "}:once"}
	if _, _, err := m.AppendTurnOnce(ctx, session, "first", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys { // as if most of the TTL had passed
		if err := raw.PExpire(ctx, k, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Batch(ctx, memory.AppendTurnOnceOp(session, "second", memory.Turn{Role: memory.RoleUser})); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		got, err := raw.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got <= time.Minute || got > ttl {
			t.Errorf("PTTL of %s after a batch append = %v, want the TTL %v set again", k, got, ttl)
		}
	}
}

// TestOnceIDsExpireWithTheirTurns: the turns list and the once hash expire
// separately, the list a moment before the hash; in that moment an append
// under a once id of the expired conversation starts a new one (seq 1)
// rather than failing on a recorded turn that is gone (seen in CI).
func TestOnceIDsExpireWithTheirTurns(t *testing.T) {
	opts := testOptions(t)
	opts.ConversationTTL = time.Hour
	m, raw := open(t, opts), rawClient(t)
	ctx := t.Context()
	session := "s-" + randomID(t)
	for _, id := range []string{"once-1", "once-2"} {
		if _, _, err := m.AppendTurnOnce(ctx, session, id, memory.Turn{Role: memory.RoleUser, Content: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Del(ctx, opts.KeyPrefix+"conv:{"+session+"}:turns").Err(); err != nil { // the list expired first
		t.Fatal(err)
	}
	got, appended, err := m.AppendTurnOnce(ctx, session, "once-2", memory.Turn{Role: memory.RoleUser, Content: "again"})
	if err != nil || !appended || got.Seq != 1 || got.Content != "again" {
		t.Fatalf("append under a once id of the expired conversation = %+v, appended %v, %v; want seq 1 appended", got, appended, err)
	}
	// The new conversation keeps no once id of the old one.
	got, appended, err = m.AppendTurnOnce(ctx, session, "once-1", memory.Turn{Role: memory.RoleUser, Content: "new"})
	if err != nil || !appended || got.Seq != 2 {
		t.Fatalf("append under the old conversation's other once id = %+v, appended %v, %v; want seq 2 appended", got, appended, err)
	}
	// A list changed outside the package is still refused, not overwritten.
	if err := raw.LTrim(ctx, opts.KeyPrefix+"conv:{"+session+"}:turns", 0, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.AppendTurnOnce(ctx, session, "once-1", memory.Turn{Role: memory.RoleUser}); err == nil || !strings.Contains(err.Error(), "changed outside this package") {
		t.Fatalf("append under a once id whose turn was trimmed away = %v, want the list reported changed", err)
	}
}
