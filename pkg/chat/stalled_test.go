// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/chat"
)

// A holder of the session's lease that stalls past it (its model answers
// late, and its renewal has not come round yet) while another process
// took the lease and answered: the once id of the answer keeps the stalled
// answer out of the conversation — one answer to the input, the new
// holder's, and no error turn.
func TestStalledHolderAnswerIsKeptOut(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		var asked atomic.Int32
		firstAsked, release := make(chan struct{}), make(chan struct{})
		srv := llmtest.NewFunc(t, func(llmtest.Request) llmtest.Reply {
			if asked.Add(1) == 1 {
				close(firstAsked)
				<-release // the stalled holder's model
				return llmtest.Reply{Content: "from the stalled holder"}
			}
			return llmtest.Reply{Content: "from the new holder"}
		})
		slowRenewal := func(owner string) func(*chat.Options) {
			return func(o *chat.Options) { o.Owner, o.LeaseTTL = owner, time.Minute } // renewed every 20 s: not within the test
		}
		a := r.open(t, srv, r.caller, slowRenewal("loop-a"))
		b := r.open(t, srv, r.newCaller(t), slowRenewal("loop-b"))
		user, err := a.Send(ctx, "hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-firstAsked:
		case <-ctx.Done():
			t.Fatal("the model was not asked")
		}
		keys, err := memory.ChatStateKeys(r.session)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Memory.Delete(ctx, keys.Lease); err != nil { // the holder's lease runs out while it stalls
			t.Fatal(err)
		}
		for _, s := range []*chat.Session{a, b} {
			settled, err := s.Wait(ctx, user.Seq)
			if err != nil || settled.Err != nil || len(settled.Answers) != 1 || settled.Answers[0].Content != "from the new holder" {
				t.Fatalf("settled %+v, %v; want the new holder's answer", settled, err)
			}
		}
		close(release)
		testenv.Eventually(t, "the stalled holder's model answered", func() bool { return asked.Load() == 2 })
		time.Sleep(500 * time.Millisecond) // time for the stalled answer to be stored, were it not refused
		var answers []string
		for _, tr := range r.turns(t) {
			switch tr.Meta[chat.MetaKind] {
			case chat.KindAnswer:
				answers = append(answers, tr.Content)
			case chat.KindError:
				t.Errorf("an error turn: %q", tr.Content)
			}
		}
		if len(answers) != 1 || answers[0] != "from the new holder" {
			t.Fatalf("answers in the conversation %q, want only the new holder's", answers)
		}
	})
}
