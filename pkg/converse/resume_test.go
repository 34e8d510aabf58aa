// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/converse"
)

// A driver that dies after making a send but before saving its task id
// (the worst moment) is replaced by one that finds the send in the
// caller's records and waits for its reply instead of sending it again.
func TestResumeFindsTheSendInFlight(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{gate: make(chan struct{}, 10)}
		r := newRig(t, w, rigOptions{answer: a})
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxTurns = 2
		c := r.start(spec)
		dctx, stop := context.WithCancel(ctx(t))
		done := r.drive(dctx, c.ID)
		testenv.Eventually(t, "the first send", func() bool { return len(a.received()) == 1 })
		r.waitFor(c.ID, "the send saved", func(c *converse.Conversation) bool {
			return c.State == converse.WaitingRemote && c.Pending.RemoteTaskID != ""
		})
		stop()
		if res := <-done; !errors.Is(res.err, context.Canceled) {
			t.Fatalf("stopped drive: %v", res.err)
		}
		// Forget the task id, as a driver killed before saving it would have.
		rec := r.load(c.ID)
		rec.Pending.RemoteTaskID = ""
		raw, _ := json.Marshal(rec)
		if err := w.Memory.Set(ctx(t), "converse/"+c.ID, raw, 0); err != nil {
			t.Fatal(err)
		}
		a.gate <- struct{}{}
		a.gate <- struct{}{}
		c = r.finish(r.drive(ctx(t), c.ID))
		if got := a.received(); !hasPrefixes(got, "turn 1:", "turn 2:") || c.State != converse.Completed {
			t.Fatalf("remote received %q, state %s: want turns 1 and 2 once each, completed", got, c.State)
		}
	})
}
