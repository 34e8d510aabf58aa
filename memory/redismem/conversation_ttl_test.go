package redismem_test

import (
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
