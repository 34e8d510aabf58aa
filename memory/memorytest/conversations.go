// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

func testAppendAndTurns(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	before := time.Now()
	t1, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser, Content: "one", Meta: map[string]string{"k": "v"}})
	must(t, err, "append 1")
	if t1.Seq != 1 || t1.Role != memory.RoleUser || t1.Content != "one" || t1.Meta["k"] != "v" {
		t.Fatalf("first stored turn = %+v", t1)
	}
	if t1.Time.Before(before.Add(-time.Minute)) || t1.Time.After(time.Now().Add(time.Minute)) {
		t.Fatalf("assigned time %v is not the time of the append (%v)", t1.Time, before)
	}
	fixed := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	t2, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleAssistant, Content: "two", Time: fixed})
	must(t, err, "append 2")
	if t2.Seq != 2 || !t2.Time.Equal(fixed) {
		t.Fatalf("second stored turn = %+v, want seq 2 and the given time %v", t2, fixed)
	}
	t3, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleTool})
	must(t, err, "append 3")
	if t3.Seq != 3 {
		t.Fatalf("third stored turn has seq %d", t3.Seq)
	}
	all := []memory.Turn{t1, t2, t3}
	cases := []struct {
		after int64
		limit int
		want  []memory.Turn
	}{
		{0, 0, all}, {0, -1, all}, {1, 0, all[1:]}, {0, 2, all[:2]}, {1, 1, all[1:2]},
		{0, 10, all}, {3, 0, nil}, {10, 0, nil},
	}
	for _, c := range cases {
		got, err := m.Turns(ctx, s, c.after, c.limit)
		must(t, err, fmt.Sprintf("turns after %d limit %d", c.after, c.limit))
		sameTurns(t, fmt.Sprintf("turns after %d limit %d", c.after, c.limit), got, c.want)
	}
	got, err := m.Turns(ctx, s+"-other", 0, 0)
	must(t, err, "turns of an unknown session")
	if len(got) != 0 {
		t.Fatalf("an unknown session has turns: %+v", got)
	}
	t1.Meta["k"] = "changed"
	if got, _ := m.Turns(ctx, s, 0, 1); len(got) != 1 || got[0].Meta["k"] != "v" {
		t.Fatalf("mutating a returned turn's meta changed the stored turn: %+v", got)
	}
}

func testInvalidTurns(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	for _, turn := range []memory.Turn{
		{Content: "no role"},
		{Role: "robot", Content: "unknown role"},
		{Role: "User", Content: "roles are lower-case"},
		{Role: memory.RoleUser, Seq: 5, Content: "seq is assigned by the store"},
	} {
		_, err := m.AppendTurn(ctx, s, turn)
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("append %+v", turn))
	}
	_, err := m.Turns(ctx, s, -1, 0)
	mustBe(t, err, memory.ErrInvalidArgument, "turns after -1")
	_, err = m.SubscribeTurns(ctx, s, -1)
	mustBe(t, err, memory.ErrInvalidArgument, "subscribe after -1")
	got, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	if len(got) != 0 {
		t.Fatalf("rejected turns were stored: %+v", got)
	}
}

func testInvalidSessions(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	for _, s := range []string{
		"", "a/b", "..", "a..b", ".a", "-a", "a b", "a*", "a{b}", "é", strings.Repeat("s", 129),
	} {
		_, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser})
		mustBe(t, err, memory.ErrInvalidKey, fmt.Sprintf("append to session %q", s))
		if !strings.Contains(err.Error(), "session id") {
			t.Errorf("error %q does not name the session id", err)
		}
		_, err = m.Turns(ctx, s, 0, 0)
		mustBe(t, err, memory.ErrInvalidKey, fmt.Sprintf("turns of session %q", s))
		_, err = m.SubscribeTurns(ctx, s, 0)
		mustBe(t, err, memory.ErrInvalidKey, fmt.Sprintf("subscribe to session %q", s))
	}
	for _, s := range []string{"A" + unique(t), "s_" + unique(t) + ".x:y-z", strings.Repeat("s", 116) + unique(t)} {
		if _, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser}); err != nil {
			t.Errorf("append to legal session %q: %v", s, err)
		}
	}
}

func testConcurrentAppends(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	const writers, each = 8, 25
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seqs []int64
		errs []error
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				turn, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser, Content: fmt.Sprintf("w%d-%d", w, i)})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				seqs = append(seqs, turn.Seq)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("concurrent appends: %v", errs)
	}
	slices.Sort(seqs)
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Fatalf("assigned seqs are not 1..%d without gaps or duplicates: %v", writers*each, seqs)
		}
	}
	got, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	contents := map[string]bool{}
	for i, turn := range got {
		if turn.Seq != int64(i+1) {
			t.Fatalf("stored turn %d has seq %d", i, turn.Seq)
		}
		contents[turn.Content] = true
	}
	if len(got) != writers*each || len(contents) != writers*each {
		t.Fatalf("stored %d turns with %d distinct contents, want %d", len(got), len(contents), writers*each)
	}
}

func testSubscribeCatchUpAndLive(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	stored := appendN(t, m, s, 3)
	ch, err := m.SubscribeTurns(ctx, s, 0)
	must(t, err, "subscribe")
	for _, want := range stored {
		sameTurns(t, "catch-up", []memory.Turn{Recv(t, ch)}, []memory.Turn{want})
	}
	live := appendN(t, m, s, 2)
	for _, want := range live {
		sameTurns(t, "live", []memory.Turn{Recv(t, ch)}, []memory.Turn{want})
	}
	next := appendN(t, m, s, 1)
	sameTurns(t, "the turn after the live ones (no duplicate before it)", []memory.Turn{Recv(t, ch)}, next)
}

func testSubscribeAfterSeq(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	stored := appendN(t, m, s, 5)
	ch, err := m.SubscribeTurns(ctx, s, 3)
	must(t, err, "subscribe after 3")
	sameTurns(t, "after 3", []memory.Turn{Recv(t, ch), Recv(t, ch)}, stored[3:])

	ahead, err := m.SubscribeTurns(ctx, s, 7)
	must(t, err, "subscribe after 7 (ahead of the conversation)")
	more := appendN(t, m, s, 3) // seqs 6, 7, 8
	sameTurns(t, "first turn after 7", []memory.Turn{Recv(t, ahead)}, more[2:])
	sameTurns(t, "first subscription continues", []memory.Turn{Recv(t, ch), Recv(t, ch), Recv(t, ch)}, more)

	fresh := "s-" + unique(t)
	empty, err := m.SubscribeTurns(ctx, fresh, 0)
	must(t, err, "subscribe to an empty session")
	first := appendN(t, m, fresh, 1)
	sameTurns(t, "first turn of a new session", []memory.Turn{Recv(t, empty)}, first)
}

func testSubscribeConcurrentWriters(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	const writers, each = 4, 25
	subs := make([]<-chan memory.Turn, 2)
	for i := range subs {
		ch, err := m.SubscribeTurns(ctx, s, 0)
		must(t, err, "subscribe")
		subs[i] = ch
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser, Content: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
				}
			}
		}()
	}
	received := make([][]memory.Turn, len(subs))
	for i, ch := range subs {
		for range writers * each {
			received[i] = append(received[i], Recv(t, ch))
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append: %v", err)
	}
	stored, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	for i := range subs {
		sameTurns(t, fmt.Sprintf("subscriber %d", i), received[i], stored)
	}
}

func testSubscribeClosesOnCancel(t *testing.T, m memory.Memory) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := "s-" + unique(t)
	ch, err := m.SubscribeTurns(ctx, s, 0)
	must(t, err, "subscribe")
	first := appendN(t, m, s, 1)
	sameTurns(t, "before cancel", []memory.Turn{Recv(t, ch)}, first)
	cancel()
	mustClose(t, ch, "subscription after its context was cancelled")
}

func testClosed(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	key := "t/" + unique(t)
	ch, err := m.SubscribeTurns(ctx, s, 0)
	must(t, err, "subscribe")
	must(t, m.Close(), "close")
	must(t, m.Close(), "second close")
	mustClose(t, ch, "subscription after Close")

	mustBe(t, m.Ping(ctx), memory.ErrClosed, "ping")
	mustBe(t, m.Set(ctx, key, []byte("v"), 0), memory.ErrClosed, "set")
	_, err = m.Get(ctx, key)
	mustBe(t, err, memory.ErrClosed, "get")
	_, err = m.GetMany(ctx, key)
	mustBe(t, err, memory.ErrClosed, "get many")
	_, err = m.GetMany(ctx)
	mustBe(t, err, memory.ErrClosed, "get many of no key")
	_, err = m.TTL(ctx, key)
	mustBe(t, err, memory.ErrClosed, "ttl")
	mustBe(t, m.Delete(ctx, key), memory.ErrClosed, "delete")
	_, err = m.List(ctx, "")
	mustBe(t, err, memory.ErrClosed, "list")
	_, err = m.SetIfAbsent(ctx, key, []byte("v"), 0)
	mustBe(t, err, memory.ErrClosed, "set if absent")
	_, err = m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleUser})
	mustBe(t, err, memory.ErrClosed, "append turn")
	_, _, err = m.AppendTurnOnce(ctx, s, "id", memory.Turn{Role: memory.RoleUser})
	mustBe(t, err, memory.ErrClosed, "append turn once")
	_, err = m.Batch(ctx, memory.SetOp(key, []byte("v"), 0), memory.AppendTurnOnceOp(s, "id", memory.Turn{Role: memory.RoleUser}))
	mustBe(t, err, memory.ErrClosed, "batch")
	_, err = m.Batch(ctx)
	mustBe(t, err, memory.ErrClosed, "empty batch")
	_, err = m.Turns(ctx, s, 0, 0)
	mustBe(t, err, memory.ErrClosed, "turns")
	_, err = m.SubscribeTurns(ctx, s, 0)
	mustBe(t, err, memory.ErrClosed, "subscribe")
	mustBe(t, m.IndexAdd(ctx, key, "m", 1), memory.ErrClosed, "index add")
	mustBe(t, m.IndexRemove(ctx, key, "m"), memory.ErrClosed, "index remove")
	_, err = m.IndexRange(ctx, key, 0, 0)
	mustBe(t, err, memory.ErrClosed, "index range")
	_, _, err = m.IndexScore(ctx, key, "m")
	mustBe(t, err, memory.ErrClosed, "index score")
	_, err = m.Batch(ctx, memory.IndexAddOp(key, "m", 1), memory.IndexRemoveOp(key, "m"))
	mustBe(t, err, memory.ErrClosed, "batch of index ops")
}

// appendN appends n user turns to session and returns them as stored.
func appendN(t *testing.T, m memory.Memory, session string, n int) []memory.Turn {
	t.Helper()
	out := make([]memory.Turn, 0, n)
	for i := range n {
		turn, err := m.AppendTurn(t.Context(), session, memory.Turn{
			Role: memory.RoleUser, Content: fmt.Sprintf("turn %d", i), Meta: map[string]string{"i": fmt.Sprint(i)},
		})
		must(t, err, "append")
		out = append(out, turn)
	}
	return out
}

// Recv returns the next turn of ch, failing t if ch closes or stays silent
// for as long as the suite waits. Backends' own subscription tests use it too.
func Recv(t *testing.T, ch <-chan memory.Turn) memory.Turn {
	t.Helper()
	select {
	case turn, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed while a turn was expected")
		}
		return turn
	case <-time.After(wait):
		t.Fatalf("no turn received within %v", wait)
	}
	return memory.Turn{}
}

// mustClose fails t unless ch closes within wait without delivering anything.
func mustClose(t *testing.T, ch <-chan memory.Turn, what string) {
	t.Helper()
	select {
	case turn, ok := <-ch:
		if ok {
			t.Fatalf("%s: got turn %+v, want the channel closed", what, turn)
		}
	case <-time.After(wait):
		t.Fatalf("%s: channel not closed within %v", what, wait)
	}
}

// sameTurns fails t unless got and want hold the same turns in the same order.
func sameTurns(t *testing.T, what string, got, want []memory.Turn) {
	t.Helper()
	equal := len(got) == len(want)
	for i := 0; equal && i < len(got); i++ {
		g, w := got[i], want[i]
		equal = g.Seq == w.Seq && g.Role == w.Role && g.Content == w.Content &&
			g.Time.Equal(w.Time) && maps.Equal(g.Meta, w.Meta)
	}
	if !equal {
		t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}
