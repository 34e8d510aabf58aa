// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
)

// slowShared is guard.Shared whose slots are freed only once release is
// closed: a response handler descheduled while it frees a call's slot.
type slowShared struct{ release chan struct{} }

func (s *slowShared) Enter(string, string, int, int, time.Duration) (guard.Pass, error) {
	return guard.Pass{Claim: s}, nil
}
func (s *slowShared) Finish(guard.Outcome) { <-s.release }
func (s *slowShared) TakeToken(string, string, float64, int) (time.Duration, bool, error) {
	return 0, true, nil
}
func (s *slowShared) Ping() error       { return nil }
func (s *slowShared) Watch(func(error)) {}
func (s *slowShared) Close() error      { return nil }

// TestWaiterReturnsOnceTheHandlerFreedTheSlot: the response handler has
// taken a call's guard ticket and is still freeing its slot when the
// waiter learns the outcome (a poll found it stored): the waiter returns
// only once the slot is free, so that the caller's next call is not
// refused BUSY (a2abus bench at max_in_flight calls in flight, under load).
func TestWaiterReturnsOnceTheHandlerFreedTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shared := &slowShared{release: make(chan struct{})}
		g := newGuard(t, guard.Config{Limits: guard.Limits{MaxInFlight: 1}, Shared: shared})
		c := &Caller{opts: Options{Name: "Cli", Guard: g, Now: time.Now, SweepInterval: time.Second}}
		if err := c.admit(&a2a.TaskRequest{TaskID: "t1", Target: "Agent", Deadline: time.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		s := &StoredResult{TaskID: "t1"}
		handled := make(chan struct{})
		go func() { c.guardDone(s); close(handled) }() // the response handler
		synctest.Wait()                                // freeing the shared slot
		returned := make(chan struct{})
		go func() { c.guardSettled(&Outcome{Result: s}); close(returned) }() // the waiter
		synctest.Wait()
		select {
		case <-returned:
			t.Error("the waiter returned while the response handler was still freeing the call's slot")
		default:
		}
		close(shared.release)
		<-returned
		<-handled
		if _, err := g.Admit("Cli", "Agent"); err != nil {
			t.Fatalf("the next call: %v", err)
		}
	})
}
