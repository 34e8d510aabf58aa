// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
)

// ConversationTTL is the conversation TTL RunConversationTTL gives its memories.
const ConversationTTL = time.Second

// errInconclusive is returned by an attempt the machine was too slow to judge.
var errInconclusive = errors.New("inconclusive")

// RunConversationTTL checks conversation expiry. newMemory must return a new,
// empty memory whose conversations expire ttl after their last append (the
// backend's ConversationTTL option), closed when t ends. It checks that every
// kind of append (AppendTurn, AppendTurnOnce, a batch's AppendTurnOnceOp)
// starts the TTL again, and that once it runs out the turns, the sequence and
// the once ids are gone together: the next append is Seq 1, even under a once
// id used before.
func RunConversationTTL(t *testing.T, newMemory func(t *testing.T, ttl time.Duration) memory.Memory) {
	t.Helper()
	m := newMemory(t, ConversationTTL)
	// An attempt is inconclusive when the machine stalled between two appends
	// for as long as the TTL: the conversation may then expire legitimately.
	for attempt := 1; ; attempt++ {
		err := refreshThenExpire(t, m, ConversationTTL)
		if !errors.Is(err, errInconclusive) {
			return
		}
		if attempt == 3 {
			t.Skipf("the machine is too slow to append within the TTL %v: %v", ConversationTTL, err)
		}
		t.Logf("attempt %d: %v; trying again", attempt, err)
	}
}

// refreshThenExpire appends to a new session every ttl/5 for 2.5 × ttl,
// each append by another path, and fails t unless every append continues the
// sequence; then it waits for the conversation to expire and checks what is
// left of it. It returns errInconclusive, without failing t, when two appends
// were ttl or more apart.
func refreshThenExpire(t *testing.T, m memory.Memory, ttl time.Duration) error {
	ctx := t.Context()
	s := "s-" + unique(t)
	first := time.Now()
	t1, ok, err := m.AppendTurnOnce(ctx, s, "once-1", memory.Turn{Role: memory.RoleUser, Content: "1"})
	must(t, err, "first append")
	if !ok || t1.Seq != 1 {
		t.Fatalf("first append = %+v, %v; want seq 1 appended", t1, ok)
	}
	prev := first // when the append that last set the TTL started
	tick := time.NewTicker(ttl / 5)
	defer tick.Stop()
	for seq := int64(2); time.Since(first) < ttl*5/2; seq++ {
		<-tick.C
		start := time.Now()
		got := appendBy(t, m, s, seq)
		if gap := time.Since(prev); got != seq {
			if gap >= ttl {
				return fmt.Errorf("%w: appends %d and %d were %v apart", errInconclusive, seq-1, seq, gap)
			}
			t.Fatalf("append %d, %v after the previous one and %v after the first, got seq %d: "+
				"the conversation expired although every append came within its TTL %v, so an append did not refresh it",
				seq, gap, time.Since(first), got, ttl)
		}
		prev = start
	}
	testenv.Eventually(t, "the conversation expires after its last append", func() bool {
		turns, err := m.Turns(ctx, s, 0, 0)
		must(t, err, "turns")
		return len(turns) == 0
	}, testenv.Within(wait))
	again, ok, err := m.AppendTurnOnce(ctx, s, "once-1", memory.Turn{Role: memory.RoleUser, Content: "again"})
	must(t, err, "append once after expiry")
	if !ok || again.Seq != 1 {
		t.Fatalf("append once under an id used before the conversation expired = seq %d, appended %v; "+
			"want seq 1 appended: the sequence and once ids expire with the turns", again.Seq, ok)
	}
	return nil
}

// appendBy appends turn seq to s, by AppendTurn, AppendTurnOnce or a batch
// in turn, and returns the Seq it got.
func appendBy(t *testing.T, m memory.Memory, s string, seq int64) int64 {
	t.Helper()
	ctx := t.Context()
	turn := memory.Turn{Role: memory.RoleUser, Content: fmt.Sprint(seq)}
	switch seq % 3 {
	case 0:
		got, err := m.AppendTurn(ctx, s, turn)
		must(t, err, "append turn")
		return got.Seq
	case 1:
		got, _, err := m.AppendTurnOnce(ctx, s, fmt.Sprintf("once-%d", seq), turn)
		must(t, err, "append turn once")
		return got.Seq
	}
	res, err := m.Batch(ctx, memory.AppendTurnOnceOp(s, fmt.Sprintf("once-%d", seq), turn))
	must(t, err, "batch append turn once")
	return res[0].Turn.Seq
}
