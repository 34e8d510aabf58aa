// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memorytest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

func testAppendTurnOnce(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	ch, err := m.SubscribeTurns(ctx, s, 0)
	must(t, err, "subscribe")
	first, ok, err := m.AppendTurnOnce(ctx, s, "notify/task-1/result", memory.Turn{Role: memory.RoleUser, Content: "first"})
	must(t, err, "first append once")
	if !ok || first.Seq != 1 || first.Content != "first" {
		t.Fatalf("first append once = %+v, %v; want seq 1 appended", first, ok)
	}
	again, ok, err := m.AppendTurnOnce(ctx, s, "notify/task-1/result", memory.Turn{Role: memory.RoleUser, Content: "retry"})
	must(t, err, "repeated append once")
	if ok {
		t.Fatal("repeated append once appended again")
	}
	sameTurns(t, "repeated append once returns the first turn", []memory.Turn{again}, []memory.Turn{first})
	plain, err := m.AppendTurn(ctx, s, memory.Turn{Role: memory.RoleAssistant, Content: "plain"})
	must(t, err, "plain append")
	other, ok, err := m.AppendTurnOnce(ctx, s, "notify/task-2/result", memory.Turn{Role: memory.RoleUser, Content: "other"})
	must(t, err, "append once with another id")
	if !ok || other.Seq != 3 {
		t.Fatalf("append once with another id = %+v, %v; want seq 3 appended", other, ok)
	}
	elsewhere, ok, err := m.AppendTurnOnce(ctx, s+"-b", "notify/task-1/result", memory.Turn{Role: memory.RoleUser, Content: "elsewhere"})
	must(t, err, "same id in another session")
	if !ok || elsewhere.Seq != 1 {
		t.Fatalf("once ids are per session: got %+v, %v", elsewhere, ok)
	}
	stored, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	sameTurns(t, "stored turns", stored, []memory.Turn{first, plain, other})
	sameTurns(t, "subscriber", []memory.Turn{Recv(t, ch), Recv(t, ch), Recv(t, ch)}, stored)
}

func testAppendTurnOnceConcurrent(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	const n = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		appended int
		seqs     = map[int64]bool{}
		errs     []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			turn, ok, err := m.AppendTurnOnce(ctx, s, "once", memory.Turn{Role: memory.RoleUser, Content: fmt.Sprint(i)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				appended++
			}
			seqs[turn.Seq] = true
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("concurrent append once: %v", errs)
	}
	if appended != 1 || len(seqs) != 1 || !seqs[1] {
		t.Fatalf("%d of %d concurrent appends with one id appended, seqs %v; want exactly one, seq 1", appended, n, seqs)
	}
	stored, err := m.Turns(ctx, s, 0, 0)
	must(t, err, "turns")
	if len(stored) != 1 {
		t.Fatalf("%d turns stored, want 1", len(stored))
	}
}

func testAppendTurnOnceInvalid(t *testing.T, m memory.Memory) {
	ctx := t.Context()
	s := "s-" + unique(t)
	for _, id := range []string{"", "a b", "a//b", "/a", "a*", strings.Repeat("i", memory.MaxKeyLen+1)} {
		_, _, err := m.AppendTurnOnce(ctx, s, id, memory.Turn{Role: memory.RoleUser})
		mustBe(t, err, memory.ErrInvalidKey, fmt.Sprintf("append once with id %.20q", id))
		if !strings.Contains(err.Error(), "once id") {
			t.Errorf("error %q does not name the once id", err)
		}
	}
	_, _, err := m.AppendTurnOnce(ctx, "bad session", "id", memory.Turn{Role: memory.RoleUser})
	mustBe(t, err, memory.ErrInvalidKey, "append once to a bad session")
	_, _, err = m.AppendTurnOnce(ctx, s, "id", memory.Turn{Role: "bot"})
	mustBe(t, err, memory.ErrInvalidArgument, "append once with a bad role")
	// A rejected turn must not consume its id.
	if _, ok, err := m.AppendTurnOnce(ctx, s, "id", memory.Turn{Role: memory.RoleUser}); err != nil || !ok {
		t.Fatalf("append once after a rejected attempt = %v, %v; want appended", ok, err)
	}
}
