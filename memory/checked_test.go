// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// spy is a Backend that counts its calls and succeeds.
type spy struct {
	memory.Memory // nil: every method used is defined below
	calls         int
}

func (s *spy) Set(context.Context, string, []byte, time.Duration) error { s.calls++; return nil }
func (s *spy) SetIfAbsent(context.Context, string, []byte, time.Duration) (bool, error) {
	s.calls++
	return true, nil
}
func (s *spy) CompareAndSet(context.Context, string, []byte, []byte, time.Duration) (bool, error) {
	s.calls++
	return true, nil
}
func (s *spy) CompareAndDelete(context.Context, string, []byte) (bool, error) {
	s.calls++
	return true, nil
}
func (s *spy) Get(context.Context, string) ([]byte, error)           { s.calls++; return nil, nil }
func (s *spy) TTL(context.Context, string) (time.Duration, error)    { s.calls++; return 0, nil }
func (s *spy) Delete(context.Context, string) error                  { s.calls++; return nil }
func (s *spy) List(context.Context, string) ([]string, error)        { s.calls++; return nil, nil }
func (s *spy) IndexAdd(context.Context, string, string, int64) error { s.calls++; return nil }
func (s *spy) IndexRemove(context.Context, string, string) error     { s.calls++; return nil }
func (s *spy) AppendTurn(_ context.Context, _ string, t memory.Turn) (memory.Turn, error) {
	s.calls++
	return t, nil
}
func (s *spy) AppendTurnOnce(_ context.Context, _, _ string, t memory.Turn) (memory.Turn, bool, error) {
	s.calls++
	return t, true, nil
}
func (s *spy) Turns(context.Context, string, int64, int) ([]memory.Turn, error) {
	s.calls++
	return nil, nil
}
func (s *spy) SubscribeTurns(context.Context, string, int64) (<-chan memory.Turn, error) {
	s.calls++
	return nil, nil
}
func (s *spy) IndexRange(context.Context, string, int64, int) ([]memory.IndexMember, error) {
	s.calls++
	return nil, nil
}
func (s *spy) IndexScore(context.Context, string, string) (int64, bool, error) {
	s.calls++
	return 0, false, nil
}
func (s *spy) Batch(_ context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	s.calls++
	return nil, nil
}

// TestCheckedRejectsBeforeTheBackend: every method refuses its bad arguments
// with a typed error naming the operation, without calling the backend, and
// passes good ones through.
func TestCheckedRejectsBeforeTheBackend(t *testing.T) {
	user := memory.Turn{Role: memory.RoleUser}
	cases := []struct {
		name string
		call func(ctx context.Context, m memory.Memory) error
		want error  // nil: the call is valid
		says string // the start of the error
	}{
		{"set", func(ctx context.Context, m memory.Memory) error { return m.Set(ctx, "k", nil, 0) }, nil, ""},
		{"set key", func(ctx context.Context, m memory.Memory) error { return m.Set(ctx, "a//b", nil, 0) }, memory.ErrInvalidKey, "set: "},
		{"set ttl", func(ctx context.Context, m memory.Memory) error { return m.Set(ctx, "k", nil, -1) }, memory.ErrInvalidArgument, "set: "},
		{"set if absent", func(ctx context.Context, m memory.Memory) error {
			_, err := m.SetIfAbsent(ctx, "k", nil, -1)
			return err
		}, memory.ErrInvalidArgument, "set if absent: "},
		{"compare and set", func(ctx context.Context, m memory.Memory) error {
			_, err := m.CompareAndSet(ctx, "k", []byte("a"), []byte("b"), time.Second)
			return err
		}, nil, ""},
		{"compare and set key", func(ctx context.Context, m memory.Memory) error {
			_, err := m.CompareAndSet(ctx, "a b", nil, nil, 0)
			return err
		}, memory.ErrInvalidKey, "compare and set: "},
		{"compare and set ttl", func(ctx context.Context, m memory.Memory) error {
			_, err := m.CompareAndSet(ctx, "k", nil, nil, -1)
			return err
		}, memory.ErrInvalidArgument, "compare and set: "},
		{"compare and delete", func(ctx context.Context, m memory.Memory) error {
			_, err := m.CompareAndDelete(ctx, "k", []byte("a"))
			return err
		}, nil, ""},
		{"compare and delete key", func(ctx context.Context, m memory.Memory) error {
			_, err := m.CompareAndDelete(ctx, "/k", nil)
			return err
		}, memory.ErrInvalidKey, "compare and delete: "},
		{"get", func(ctx context.Context, m memory.Memory) error { _, err := m.Get(ctx, ""); return err }, memory.ErrInvalidKey, "get: "},
		{"ttl", func(ctx context.Context, m memory.Memory) error { _, err := m.TTL(ctx, "*"); return err }, memory.ErrInvalidKey, "ttl: "},
		{"delete", func(ctx context.Context, m memory.Memory) error { return m.Delete(ctx, "a/") }, memory.ErrInvalidKey, "delete: "},
		{"list", func(ctx context.Context, m memory.Memory) error { _, err := m.List(ctx, "/"); return err }, memory.ErrInvalidKey, "list: "},
		{"list all", func(ctx context.Context, m memory.Memory) error { _, err := m.List(ctx, ""); return err }, nil, ""},
		{"append session", func(ctx context.Context, m memory.Memory) error {
			_, err := m.AppendTurn(ctx, "a b", user)
			return err
		}, memory.ErrInvalidKey, "append turn: "},
		{"append turn", func(ctx context.Context, m memory.Memory) error {
			_, err := m.AppendTurn(ctx, "s1", memory.Turn{Role: "bot"})
			return err
		}, memory.ErrInvalidArgument, `append turn to "s1": `},
		{"append", func(ctx context.Context, m memory.Memory) error { _, err := m.AppendTurn(ctx, "s1", user); return err }, nil, ""},
		{"append once id", func(ctx context.Context, m memory.Memory) error {
			_, _, err := m.AppendTurnOnce(ctx, "a b", "a b", memory.Turn{Seq: 1})
			return err
		}, memory.ErrInvalidKey, "append turn once: memory: invalid key: once id"},
		{"append once session", func(ctx context.Context, m memory.Memory) error {
			_, _, err := m.AppendTurnOnce(ctx, "a b", "id", user)
			return err
		}, memory.ErrInvalidKey, "append turn: "},
		{"append once turn", func(ctx context.Context, m memory.Memory) error {
			_, _, err := m.AppendTurnOnce(ctx, "s1", "id", memory.Turn{Role: memory.RoleUser, Seq: 2})
			return err
		}, memory.ErrInvalidArgument, `append turn to "s1": `},
		{"turns", func(ctx context.Context, m memory.Memory) error { _, err := m.Turns(ctx, "s1", -1, 0); return err }, memory.ErrInvalidArgument, "turns: "},
		{"subscribe", func(ctx context.Context, m memory.Memory) error {
			_, err := m.SubscribeTurns(ctx, "", 0)
			return err
		}, memory.ErrInvalidKey, "subscribe turns: "},
		{"index add", func(ctx context.Context, m memory.Memory) error {
			return m.IndexAdd(ctx, "i", "m", memory.MaxIndexScore+1)
		}, memory.ErrInvalidArgument, "index add: "},
		{"index remove", func(ctx context.Context, m memory.Memory) error { return m.IndexRemove(ctx, "i", "") }, memory.ErrInvalidArgument, "index remove: "},
		{"index range", func(ctx context.Context, m memory.Memory) error {
			_, err := m.IndexRange(ctx, "a//b", 0, 0)
			return err
		}, memory.ErrInvalidKey, "index range: "},
		{"index score", func(ctx context.Context, m memory.Memory) error {
			_, _, err := m.IndexScore(ctx, "i", "a b")
			return err
		}, memory.ErrInvalidArgument, "index score: "},
		{"batch", func(ctx context.Context, m memory.Memory) error {
			_, err := m.Batch(ctx, memory.SetOp("k", nil, 0), memory.DeleteOp(""))
			return err
		}, memory.ErrInvalidKey, "batch: batch op 1"},
		{"empty batch", func(ctx context.Context, m memory.Memory) error { _, err := m.Batch(ctx); return err }, nil, ""},
	}
	for _, tc := range cases {
		b := &spy{}
		err := tc.call(t.Context(), memory.Check(b))
		switch {
		case tc.want == nil && (err != nil || b.calls != 1):
			t.Errorf("%s: error %v after %d backend calls; want the one call, passed through", tc.name, err, b.calls)
		case tc.want != nil && (!errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), tc.says)):
			t.Errorf("%s: error %v, want one wrapping %v starting %q", tc.name, err, tc.want, tc.says)
		case tc.want != nil && b.calls != 0:
			t.Errorf("%s: the backend was called %d times with a bad argument", tc.name, b.calls)
		}
	}
}

// TestCheckedAllocatesNothing: on the invoke chain's calls (Set, Get, Batch,
// AppendTurnOnce) with good arguments, validation and forwarding allocate nothing.
func TestCheckedAllocatesNothing(t *testing.T) {
	var m memory.Memory = memory.Check(&spy{})
	ctx := t.Context()
	value := []byte("v")
	turn := memory.Turn{Role: memory.RoleTool, Content: "done", Meta: map[string]string{"task": "t1"}}
	ops := []memory.Op{
		memory.SetOp("session/s1/a2a/Agent/t1/result", value, time.Hour),
		memory.AppendTurnOnceOp("s1", "notify/t1/result", turn),
		memory.IndexRemoveOp("caller/pending", "t1"),
	}
	calls := map[string]func(){
		"Set": func() { _ = m.Set(ctx, "session/s1/a2a/Agent/t1/result", value, time.Hour) },
		"Get": func() { _, _ = m.Get(ctx, "session/s1/a2a/Agent/t1/result") },
		"Batch": func() {
			if _, err := m.Batch(ctx, ops...); err != nil {
				t.Fatal(err)
			}
		},
		"AppendTurnOnce": func() {
			if _, _, err := m.AppendTurnOnce(ctx, "s1", "notify/t1/result", turn); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, call := range calls {
		if n := testing.AllocsPerRun(100, call); n != 0 {
			t.Errorf("%s through Checked: %v allocations per call, want 0", name, n)
		}
	}
}
