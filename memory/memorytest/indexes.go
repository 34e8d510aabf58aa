// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

func testIndexAddMoveRemove(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	idx := "idx/" + unique(t)
	must(t, m.IndexAdd(ctx, idx, "a", 30), "add a")
	must(t, m.IndexAdd(ctx, idx, "b", 10), "add b")
	must(t, m.IndexAdd(ctx, idx, "c", 20), "add c")
	mustRange(t, m, idx, math.MaxInt64, 0, "b:10 c:20 a:30")
	mustScore(t, m, idx, "c", 20, true)

	must(t, m.IndexAdd(ctx, idx, "b", 40), "move b")
	mustRange(t, m, idx, math.MaxInt64, 0, "c:20 a:30 b:40")
	mustScore(t, m, idx, "b", 40, true)
	must(t, m.IndexAdd(ctx, idx, "b", 40), "add b again at its score")
	mustRange(t, m, idx, math.MaxInt64, 0, "c:20 a:30 b:40")

	must(t, m.IndexRemove(ctx, idx, "a"), "remove a")
	mustRange(t, m, idx, math.MaxInt64, 0, "c:20 b:40")
	mustScore(t, m, idx, "a", 0, false)
	must(t, m.IndexRemove(ctx, idx, "a"), "remove a again")
	must(t, m.IndexRemove(ctx, idx, "never-added"), "remove a member never added")
	must(t, m.IndexRemove(ctx, "idx/"+unique(t), "x"), "remove from an unknown index")
	mustScore(t, m, "idx/"+unique(t), "x", 0, false)

	must(t, m.IndexRemove(ctx, idx, "b"), "remove b")
	must(t, m.IndexRemove(ctx, idx, "c"), "remove c")
	mustRange(t, m, idx, math.MaxInt64, 0, "")
	must(t, m.IndexAdd(ctx, idx, "c", -5), "add c to the emptied index")
	mustRange(t, m, idx, math.MaxInt64, 0, "c:-5")

	// Indexes are apart from each other and from the Store's keys.
	other := "idx/" + unique(t)
	must(t, m.IndexAdd(ctx, other, "c", 7), "add c to another index")
	mustScore(t, m, idx, "c", -5, true)
	mustScore(t, m, other, "c", 7, true)
	must(t, m.Set(ctx, idx, []byte("v"), 0), "set a key named like the index")
	mustValue(t, m, idx, "v")
	mustRange(t, m, idx, math.MaxInt64, 0, "c:-5")
	keys, err := m.List(ctx, "idx/")
	must(t, err, "list")
	if !slices.Equal(keys, []string{idx}) {
		t.Fatalf("list of idx/ = %q, want only the key %q (indexes are not keys)", keys, idx)
	}
}

func testIndexRange(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	idx := "idx/" + unique(t)
	if got, err := m.IndexRange(ctx, idx, math.MaxInt64, 0); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("range of an unknown index = %#v, %v; want an empty, non-nil slice", got, err)
	}
	// Ties are ordered by member bytes, whatever the order of adding.
	for _, add := range []struct {
		member string
		score  int64
	}{
		{"m", 5}, {"b", 5}, {"Z", 5}, {"ba", 5}, {"a", 5}, {"x", 1}, {"y", -3},
		{"top", memory.MaxIndexScore}, {"bottom", -memory.MaxIndexScore}, {"p", 6}, {"q", 4},
	} {
		must(t, m.IndexAdd(ctx, idx, add.member, add.score), "add "+add.member)
	}
	const all = "bottom:-9007199254740992 y:-3 x:1 q:4 Z:5 a:5 b:5 ba:5 m:5 p:6 top:9007199254740992"
	mustRange(t, m, idx, math.MaxInt64, 0, all)
	mustRange(t, m, idx, math.MaxInt64, -1, all)
	mustRange(t, m, idx, memory.MaxIndexScore, 100, all)
	mustRange(t, m, idx, memory.MaxIndexScore-1, 0, strings.TrimSuffix(all, " top:9007199254740992"))
	mustRange(t, m, idx, 5, 0, "bottom:-9007199254740992 y:-3 x:1 q:4 Z:5 a:5 b:5 ba:5 m:5")
	mustRange(t, m, idx, 4, 0, "bottom:-9007199254740992 y:-3 x:1 q:4")
	mustRange(t, m, idx, 0, 0, "bottom:-9007199254740992 y:-3")
	mustRange(t, m, idx, -memory.MaxIndexScore, 0, "bottom:-9007199254740992")
	mustRange(t, m, idx, -memory.MaxIndexScore-1, 0, "")
	mustRange(t, m, idx, math.MinInt64, 0, "")
	mustRange(t, m, idx, 5, 6, "bottom:-9007199254740992 y:-3 x:1 q:4 Z:5 a:5")
	mustRange(t, m, idx, 5, 1, "bottom:-9007199254740992")
	mustRange(t, m, idx, 2, 10, "bottom:-9007199254740992 y:-3 x:1")
}

func testIndexConcurrent(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	idx := "idx/" + unique(t)
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				member := fmt.Sprintf("w%d-%02d", w, i)
				if err := m.IndexAdd(ctx, idx, member, int64(i)); err != nil {
					errs <- err
					return
				}
				if i%2 == 1 { // remove every other one again
					if err := m.IndexRemove(ctx, idx, member); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent index writes: %v", err)
	}
	got, err := m.IndexRange(ctx, idx, math.MaxInt64, 0)
	must(t, err, "range")
	if len(got) != writers*(each+1)/2 {
		t.Fatalf("range after concurrent writes has %d members, want %d", len(got), writers*(each+1)/2)
	}
	for i, im := range got {
		if im.Score%2 != 0 || !strings.HasSuffix(im.Member, fmt.Sprintf("-%02d", im.Score)) {
			t.Fatalf("member %d is %+v: a removed member, or the wrong score", i, im)
		}
		if i > 0 && (got[i-1].Score > im.Score || got[i-1].Score == im.Score && got[i-1].Member >= im.Member) {
			t.Fatalf("range out of order at %d: %+v then %+v", i, got[i-1], im)
		}
	}
}

func testIndexBatch(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	idx := "idx/" + unique(t)
	key := "t/" + unique(t)
	must(t, m.IndexAdd(ctx, idx, "old", 1), "add old")
	must(t, m.IndexAdd(ctx, idx, "moved", 2), "add moved")
	ops := []memory.Op{
		memory.IndexAddOp(idx, "new", 50),
		memory.SetOp(key, []byte("v"), 0),
		memory.IndexRemoveOp(idx, "old"),
		memory.IndexAddOp(idx, "moved", 60),
		memory.IndexRemoveOp(idx, "never-added"),
		memory.IndexAddOp(idx, "brief", 3),
		memory.IndexRemoveOp(idx, "brief"), // sees the add before it
		memory.IndexRemoveOp(idx, "late"),
		memory.IndexAddOp(idx, "late", 70), // sees the remove before it
		memory.DeleteOp(key),
	}
	res, err := m.Batch(ctx, ops...)
	must(t, err, "batch")
	if len(res) != 10 {
		t.Fatalf("batch of 10 ops returned %d results", len(res))
	}
	for i, r := range res {
		if !r.Applied {
			t.Errorf("result %d (%s): applied = false, want true", i, ops[i])
		}
	}
	mustRange(t, m, idx, math.MaxInt64, 0, "new:50 moved:60 late:70")
	_, err = m.Get(ctx, key)
	mustBe(t, err, memory.ErrNotFound, "get of a key set then deleted by the batch")

	// A repeated batch (as after ErrUnavailable) leaves the same index.
	_, err = m.Batch(ctx, memory.IndexAddOp(idx, "new", 50), memory.IndexRemoveOp(idx, "old"))
	must(t, err, "repeated batch")
	mustRange(t, m, idx, math.MaxInt64, 0, "new:50 moved:60 late:70")
}

// invalidIndexMembers break one rule of memory.ValidateIndexMember each.
var invalidIndexMembers = []string{
	"", "a b", " a", "a\tb", "a\nb", "a\x00b", "a\x7fb", "é", strings.Repeat("m", memory.MaxIndexMemberLen+1),
}

func testIndexInvalid(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	idx := "idx/" + unique(t)
	for _, bad := range invalidKeys {
		err := m.IndexAdd(ctx, bad, "m", 1)
		mustBe(t, err, memory.ErrInvalidArgument, "add to index "+bad)
		mustBe(t, err, memory.ErrInvalidKey, "add to index "+bad)
		if !strings.Contains(err.Error(), "index") {
			t.Errorf("error %q does not say it is about the index", err)
		}
		mustBe(t, m.IndexRemove(ctx, bad, "m"), memory.ErrInvalidArgument, "remove from index "+bad)
		_, err = m.IndexRange(ctx, bad, 0, 0)
		mustBe(t, err, memory.ErrInvalidArgument, "range of index "+bad)
		_, _, err = m.IndexScore(ctx, bad, "m")
		mustBe(t, err, memory.ErrInvalidArgument, "score in index "+bad)
		_, err = m.Batch(ctx, memory.IndexAddOp(bad, "m", 1))
		mustBe(t, err, memory.ErrInvalidArgument, "batch add to index "+bad)
		_, err = m.Batch(ctx, memory.IndexRemoveOp(bad, "m"))
		mustBe(t, err, memory.ErrInvalidArgument, "batch remove from index "+bad)
	}
	for _, bad := range invalidIndexMembers {
		err := m.IndexAdd(ctx, idx, bad, 1)
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("add member %q", bad))
		if !strings.Contains(err.Error(), "member") {
			t.Errorf("error %q does not say it is about the member", err)
		}
		mustBe(t, m.IndexRemove(ctx, idx, bad), memory.ErrInvalidArgument, fmt.Sprintf("remove member %q", bad))
		_, _, err = m.IndexScore(ctx, idx, bad)
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("score of member %q", bad))
		_, err = m.Batch(ctx, memory.IndexAddOp(idx, bad, 1))
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("batch add member %q", bad))
		_, err = m.Batch(ctx, memory.IndexRemoveOp(idx, bad))
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("batch remove member %q", bad))
	}
	for _, bad := range []int64{memory.MaxIndexScore + 1, -memory.MaxIndexScore - 1, math.MaxInt64, math.MinInt64} {
		err := m.IndexAdd(ctx, idx, "m", bad)
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("add at score %d", bad))
		if !strings.Contains(err.Error(), "score") {
			t.Errorf("error %q does not say it is about the score", err)
		}
		_, err = m.Batch(ctx, memory.IndexAddOp(idx, "m", bad))
		mustBe(t, err, memory.ErrInvalidArgument, fmt.Sprintf("batch add at score %d", bad))
	}
	mustRange(t, m, idx, math.MaxInt64, 0, "")

	// The limits themselves are valid, and members are not keys: glob characters are fine.
	long := strings.Repeat("m", memory.MaxIndexMemberLen)
	must(t, m.IndexAdd(ctx, idx, long, memory.MaxIndexScore), "add the longest member at the highest score")
	must(t, m.IndexAdd(ctx, idx, `*?[]\/..`, -memory.MaxIndexScore), "add a member with glob characters at the lowest score")
	mustRange(t, m, idx, math.MaxInt64, 0, `*?[]\/..:-9007199254740992 `+long+":9007199254740992")
}

// mustRange fails t unless IndexRange(index, max, limit) returns want, as "member:score" separated by spaces.
func mustRange(t *testing.T, m memory.Memory, index string, max int64, limit int, want string) {
	t.Helper()
	got, err := m.IndexRange(t.Context(), index, max, limit)
	must(t, err, fmt.Sprintf("range %q up to %d", index, max))
	parts := make([]string, len(got))
	for i, im := range got {
		parts[i] = fmt.Sprintf("%s:%d", im.Member, im.Score)
	}
	if s := strings.Join(parts, " "); s != want {
		t.Fatalf("range %q up to %d, limit %d = %q, want %q", index, max, limit, s, want)
	}
}

// mustScore fails t unless IndexScore(index, member) returns score and found.
func mustScore(t *testing.T, m memory.Memory, index, member string, score int64, found bool) {
	t.Helper()
	got, ok, err := m.IndexScore(t.Context(), index, member)
	must(t, err, fmt.Sprintf("score of %q in %q", member, index))
	if got != score || ok != found {
		t.Fatalf("score of %q in %q = %d, %v; want %d, %v", member, index, got, ok, score, found)
	}
}
