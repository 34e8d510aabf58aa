// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

func TestValidateIndexMember(t *testing.T) {
	cases := []struct {
		member string
		rule   string // a fragment of the error; "" means valid
	}{
		{"t1", ""},
		{`*?[]\/..:{}`, ""},
		{strings.Repeat("m", memory.MaxIndexMemberLen), ""},
		{"", "is empty"},
		{"a b", "byte 1"},
		{"a\x7f", "byte 1"},
		{"é", "byte 0"},
		{strings.Repeat("m", memory.MaxIndexMemberLen+1), "257 bytes, the limit is 256"},
	}
	for _, tc := range cases {
		err := memory.ValidateIndexMember(tc.member)
		switch {
		case tc.rule == "" && err != nil:
			t.Errorf("member %q: unexpected error %v", tc.member, err)
		case tc.rule != "" && (!errors.Is(err, memory.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.rule) ||
			!strings.Contains(err.Error(), "index member")):
			t.Errorf("member %q: error %v, want ErrInvalidArgument naming the index member and %q", tc.member, err, tc.rule)
		}
	}
}

func TestValidateIndexAndScore(t *testing.T) {
	err := memory.ValidateIndex("a//b")
	if !errors.Is(err, memory.ErrInvalidArgument) || !errors.Is(err, memory.ErrInvalidKey) || !strings.Contains(err.Error(), `index "a//b"`) {
		t.Errorf("ValidateIndex(a//b) = %v; want ErrInvalidArgument and ErrInvalidKey naming the index", err)
	}
	if err := memory.ValidateIndex("caller/pending"); err != nil {
		t.Errorf("ValidateIndex(caller/pending) = %v", err)
	}
	for _, ok := range []int64{0, -1, memory.MaxIndexScore, -memory.MaxIndexScore} {
		if err := memory.ValidateIndexScore(ok); err != nil {
			t.Errorf("score %d: %v", ok, err)
		}
	}
	for _, bad := range []int64{memory.MaxIndexScore + 1, -memory.MaxIndexScore - 1, math.MaxInt64, math.MinInt64} {
		if err := memory.ValidateIndexScore(bad); !errors.Is(err, memory.ErrInvalidArgument) {
			t.Errorf("score %d: %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestIndexOps(t *testing.T) {
	add, rm := memory.IndexAddOp("pending", "t1", 42), memory.IndexRemoveOp("pending", "t1")
	if add.Kind != memory.OpIndexAdd || add.Key != "pending" || add.Member != "t1" || add.Score != 42 {
		t.Errorf("IndexAddOp = %+v", add)
	}
	if rm.Kind != memory.OpIndexRemove || rm.Key != "pending" || rm.Member != "t1" {
		t.Errorf("IndexRemoveOp = %+v", rm)
	}
	if s := add.String(); s != `index add "t1" to "pending" at 42` {
		t.Errorf("String = %q", s)
	}
	if s := rm.String(); s != `index remove "t1" from "pending"` {
		t.Errorf("String = %q", s)
	}
	if err := memory.ValidateOps([]memory.Op{add, rm}); err != nil {
		t.Errorf("valid index ops: %v", err)
	}
	err := memory.ValidateOps([]memory.Op{add, memory.IndexAddOp("pending", "t 2", 1)})
	if !errors.Is(err, memory.ErrInvalidArgument) || !strings.Contains(err.Error(), "batch op 1") {
		t.Errorf("bad index op: %v, want ErrInvalidArgument naming op 1", err)
	}
	if memory.OpIndexAdd <= memory.OpAppendTurnOnce || memory.OpIndexRemove != memory.OpIndexAdd+1 {
		t.Errorf("op kinds renumbered: %d %d", memory.OpIndexAdd, memory.OpIndexRemove)
	}
}
