// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

func testBatchResults(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	s := "s-" + unique(t)
	must(t, m.Set(ctx, base+"/taken", []byte("old"), 0), "set taken")
	must(t, m.Set(ctx, base+"/doomed", []byte("x"), 0), "set doomed")
	ch, err := m.SubscribeTurns(ctx, s, 0)
	must(t, err, "subscribe")
	turn := memory.Turn{Role: memory.RoleUser, Content: "done", Meta: map[string]string{"task": "1"}}
	res, err := m.Batch(ctx,
		memory.SetOp(base+"/set", []byte("v"), time.Hour),
		memory.SetIfAbsentOp(base+"/fresh", []byte("first"), 0),
		memory.SetIfAbsentOp(base+"/taken", []byte("new"), 0),
		memory.DeleteOp(base+"/doomed"),
		memory.DeleteOp(base+"/never-set"),
		memory.AppendTurnOnceOp(s, "notify/1", turn),
	)
	must(t, err, "batch")
	if len(res) != 6 {
		t.Fatalf("batch of 6 ops returned %d results", len(res))
	}
	wantApplied := []bool{true, true, false, true, true, true}
	for i, want := range wantApplied {
		if res[i].Applied != want {
			t.Errorf("result %d: applied = %v, want %v", i, res[i].Applied, want)
		}
	}
	mustValue(t, m, base+"/set", "v")
	if ttl, err := m.TTL(ctx, base+"/set"); err != nil || ttl <= 0 || ttl > time.Hour {
		t.Errorf("ttl of a key set by a batch with 1h = %v, %v", ttl, err)
	}
	mustValue(t, m, base+"/fresh", "first")
	mustValue(t, m, base+"/taken", "old")
	_, err = m.Get(ctx, base+"/doomed")
	mustBe(t, err, memory.ErrNotFound, "get of a key deleted by a batch")
	appended := res[5].Turn
	if appended.Seq != 1 || appended.Content != "done" || appended.Meta["task"] != "1" || appended.Time.IsZero() {
		t.Fatalf("appended turn = %+v; want seq 1 with the content, meta and a time", appended)
	}
	stored, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	sameTurns(t, "turns after the batch", stored, []memory.Turn{appended})
	sameTurns(t, "subscriber", []memory.Turn{Recv(t, ch)}, stored)

	again, err := m.Batch(ctx, memory.AppendTurnOnceOp(s, "notify/1", memory.Turn{Role: memory.RoleUser, Content: "retry"}))
	must(t, err, "repeated batch append")
	if again[0].Applied {
		t.Fatal("a repeated append once in a batch appended again")
	}
	sameTurns(t, "repeated batch append returns the first turn", []memory.Turn{again[0].Turn}, []memory.Turn{appended})
	_, applied, err := m.AppendTurnOnce(ctx, s, "notify/1", turn)
	must(t, err, "append once after the batch")
	if applied {
		t.Fatal("AppendTurnOnce did not see the id a batch used")
	}

	empty, err := m.Batch(ctx)
	must(t, err, "empty batch")
	if len(empty) != 0 {
		t.Fatalf("empty batch returned %d results", len(empty))
	}
}

func testBatchOrder(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	s := "s-" + unique(t)
	res, err := m.Batch(ctx,
		memory.SetOp(key, []byte("v1"), 0),
		memory.SetIfAbsentOp(key, []byte("v2"), 0), // sees the set before it
		memory.DeleteOp(key),
		memory.SetIfAbsentOp(key, []byte("v3"), 0), // sees the delete before it
		memory.AppendTurnOnceOp(s, "a", memory.Turn{Role: memory.RoleUser, Content: "a"}),
		memory.AppendTurnOnceOp(s, "b", memory.Turn{Role: memory.RoleUser, Content: "b"}),
		memory.AppendTurnOnceOp(s, "a", memory.Turn{Role: memory.RoleUser, Content: "a again"}),
	)
	must(t, err, "batch")
	got := make([]string, len(res))
	for i, r := range res {
		got[i] = fmt.Sprintf("%v/%d/%s", r.Applied, r.Turn.Seq, r.Turn.Content)
	}
	want := []string{"true/0/", "false/0/", "true/0/", "true/0/", "true/1/a", "true/2/b", "false/1/a"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("results = %v, want %v (ops must run in order)", got, want)
	}
	mustValue(t, m, key, "v3")
	stored, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	if len(stored) != 2 || stored[0].Content != "a" || stored[1].Content != "b" {
		t.Fatalf("turns = %+v, want a then b", stored)
	}
}

func testBatchInvalid(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	key := "t/" + unique(t)
	s := "s-" + unique(t)
	user := memory.Turn{Role: memory.RoleUser}
	cases := []struct {
		name string
		bad  memory.Op
		want error
		says string
	}{
		{"set key", memory.SetOp("a//b", nil, 0), memory.ErrInvalidKey, "a//b"},
		{"set ttl", memory.SetOp(key+"/x", nil, -time.Second), memory.ErrInvalidArgument, "ttl"},
		{"set if absent key", memory.SetIfAbsentOp("*", nil, 0), memory.ErrInvalidKey, "*"},
		{"set if absent ttl", memory.SetIfAbsentOp(key+"/x", nil, -1), memory.ErrInvalidArgument, "ttl"},
		{"delete key", memory.DeleteOp(""), memory.ErrInvalidKey, "key"},
		{"session", memory.AppendTurnOnceOp("bad session", "id", user), memory.ErrInvalidKey, "bad session"},
		{"once id", memory.AppendTurnOnceOp(s, "a b", user), memory.ErrInvalidKey, "once id"},
		{"role", memory.AppendTurnOnceOp(s, "id", memory.Turn{Role: "bot"}), memory.ErrInvalidArgument, "bot"},
		{"seq", memory.AppendTurnOnceOp(s, "id", memory.Turn{Role: memory.RoleUser, Seq: 3}), memory.ErrInvalidArgument, "seq"},
		{"index add index", memory.IndexAddOp("a//b", "m", 1), memory.ErrInvalidArgument, "a//b"},
		{"index add member", memory.IndexAddOp(key+"/i", "a b", 1), memory.ErrInvalidArgument, "member"},
		{"index add score", memory.IndexAddOp(key+"/i", "m", memory.MaxIndexScore+1), memory.ErrInvalidArgument, "score"},
		{"index remove index", memory.IndexRemoveOp("", "m"), memory.ErrInvalidArgument, "index"},
		{"index remove member", memory.IndexRemoveOp(key+"/i", ""), memory.ErrInvalidArgument, "member"},
		{"zero op", memory.Op{}, memory.ErrInvalidArgument, "kind"},
	}
	for _, tc := range cases {
		res, err := m.Batch(ctx,
			memory.SetOp(key, []byte("before"), 0),
			memory.AppendTurnOnceOp(s, "first", user),
			tc.bad)
		mustBe(t, err, tc.want, tc.name)
		if res != nil {
			t.Errorf("%s: results %v returned with an error", tc.name, res)
		}
		if msg := err.Error(); !strings.Contains(msg, "op 2") || !strings.Contains(msg, tc.says) {
			t.Errorf("%s: error %q does not name op 2 and %q", tc.name, msg, tc.says)
		}
	}
	// A batch with a bad op runs none of its ops.
	_, err := m.Get(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "get of a key set by a rejected batch")
	if turns, err := m.Turns(ctx, s, 0, 0); err != nil || len(turns) != 0 {
		t.Fatalf("turns after rejected batches = %+v, %v; want none", turns, err)
	}
}

// mustValue fails t unless key holds want.
func mustValue(t *testing.T, m memory.Memory, key, want string) {
	t.Helper()
	got, err := m.Get(t.Context(), key)
	must(t, err, "get "+key)
	if string(got) != want {
		t.Fatalf("get %q = %q, want %q", key, got, want)
	}
}

// testBatchStreamAdd: a stream append is applied beside the other ops of
// its batch, and a stream without a positive MaxLen is refused before any
// op runs; a backend that reads streams (memory.StreamReader) reads back
// the last entries, oldest first.
func testBatchStreamAdd(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	base := "t/" + unique(t)
	res, err := m.Batch(ctx, memory.StreamAddOp(base+"/stream", []byte(`{"n":1}`), 10), memory.SetOp(base+"/after", []byte("v"), time.Hour))
	must(t, err, "batch with a stream add")
	if len(res) != 2 || !res[0].Applied || !res[1].Applied {
		t.Fatalf("results = %+v, want both applied", res)
	}
	mustValue(t, m, base+"/after", "v")
	if r, ok := m.(memory.StreamReader); ok {
		for i := 2; i <= 12; i++ {
			_, err := m.Batch(ctx, memory.StreamAddOp(base+"/stream", fmt.Appendf(nil, `{"n":%d}`, i), 10))
			must(t, err, "stream add")
		}
		tail, err := r.StreamTail(ctx, base+"/stream", 3)
		must(t, err, "stream tail")
		if len(tail) != 3 || string(tail[0]) != `{"n":10}` || string(tail[2]) != `{"n":12}` {
			t.Errorf("StreamTail(3) = %q, want n 10, 11, 12", tail)
		}
		if tail, err := r.StreamTail(ctx, base+"/none", 3); err != nil || len(tail) != 0 {
			t.Errorf("StreamTail of no stream = %q, %v", tail, err)
		}
	}
	_, err = m.Batch(ctx, memory.SetOp(base+"/never", []byte("v"), 0), memory.StreamAddOp(base+"/stream", []byte("x"), 0))
	mustBe(t, err, memory.ErrInvalidArgument, "a stream add without MaxLen")
	_, err = m.Get(ctx, base+"/never")
	mustBe(t, err, memory.ErrNotFound, "an op of a refused batch")
}
