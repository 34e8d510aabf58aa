// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/converse"
)

// A full_auto conversation loops draft → send → reply → draft until max
// turns, each reply fed back to the local agent, each turn sent once.
func TestFullAutoRunsToMaxTurns(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{draft: &drafter{tokens: 7}, answer: &answerer{tokens: 3}})
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxTurns = 3
		c := r.start(spec)
		if c.State != converse.Idle {
			t.Fatalf("a new conversation is %s, want idle", c.State)
		}
		c = r.finish(r.drive(ctx(t), c.ID))
		if c.State != converse.Completed || c.Limit != converse.LimitMaxTurns || c.Exchanges != 3 {
			t.Fatalf("ended %s limit %q after %d exchanges, want completed by max_turns after 3", c.State, c.Limit, c.Exchanges)
		}
		got := r.answer.received()
		if !hasPrefixes(got, "turn 1:", "turn 2:", "turn 3:") {
			t.Fatalf("the remote received %q, want turns 1, 2, 3 once each", got)
		}
		// Each draft request carried the previous reply verbatim.
		reqs := r.draft.seen()
		for i := 1; i < len(reqs); i++ {
			want := "answer to: " + got[i-1]
			if reqs[i].RemoteMessage != want || reqs[i].TurnIndex != i+1 {
				t.Fatalf("draft request %d: turn %d remote %q, want turn %d remote %q", i, reqs[i].TurnIndex, reqs[i].RemoteMessage, i+1, want)
			}
		}
		if c.TokensUsed != 3*7+3*3 {
			t.Fatalf("tokens used %d, want %d", c.TokensUsed, 3*7+3*3)
		}
		if len(texts(c, converse.RoleLocal)) != 3 || len(texts(c, converse.RoleRemote)) != 3 {
			t.Fatalf("transcript %+v, want 3 local and 3 remote messages", c.Transcript)
		}
		var banner bool
		for _, e := range c.Events {
			banner = banner || (e.Kind == converse.EventLimit && e.Limit == converse.LimitMaxTurns)
		}
		if !banner {
			t.Fatalf("no limit event in %+v", c.Events)
		}
		// The control envelope names the conversation, the origin and the hops.
		if h := r.answer.handoffs[0]; !strings.Contains(h, `"conversationId":"`+c.ID+`"`) ||
			!strings.Contains(h, `"originAgent":"`+r.local+`"`) || !strings.Contains(h, `"hopCount":1`) {
			t.Fatalf("handoff %s lacks the conversation, origin or hop count", h)
		}
		// Driving an ended conversation returns it as it is.
		again, err := r.orch.Drive(ctx(t), c.ID)
		if err != nil || again.State != converse.Completed || len(r.answer.received()) != 3 {
			t.Fatalf("Drive of an ended conversation: %v, %v, %d sends", err, again.State, len(r.answer.received()))
		}
	})
}

// manual sends nothing until approved; approve --text sends the edited text.
func TestManualWaitsForApproval(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{})
		c := r.start(r.spec(converse.Manual))
		done := r.drive(ctx(t), c.ID)
		r.waitFor(c.ID, "the first draft waiting for approval", (*converse.Conversation).AwaitingApproval)
		if got := r.answer.received(); len(got) != 0 {
			t.Fatalf("manual sent %q before approval", got)
		}
		r.control(c.ID, converse.Command{Kind: converse.CmdApprove, By: "tester"})
		r.waitFor(c.ID, "turn 2 waiting for approval", func(c *converse.Conversation) bool {
			return c.AwaitingApproval() && c.Pending.Turn == 2
		})
		r.control(c.ID, converse.Command{Kind: converse.CmdApprove, Text: "edited by a person"})
		r.waitFor(c.ID, "turn 3 waiting for approval", func(c *converse.Conversation) bool {
			return c.AwaitingApproval() && c.Pending.Turn == 3
		})
		r.control(c.ID, converse.Command{Kind: converse.CmdStop, By: "tester"})
		c = r.finish(done)
		got := r.answer.received()
		if len(got) != 2 || !strings.HasPrefix(got[0], "turn 1:") || got[1] != "edited by a person" {
			t.Fatalf("remote received %q, want the approved draft then the edited text", got)
		}
		if c.State != converse.Stopped || c.Transcript[0].How != converse.SentApproved || c.Transcript[2].How != converse.SentEdited {
			t.Fatalf("state %s transcript %+v, want stopped, approved then edited", c.State, c.Transcript)
		}
		if _, err := converse.Send(ctx(t), r.n.Bus, w.Memory, c.ID, converse.Command{Kind: converse.CmdPause}); !errors.Is(err, converse.ErrInvalidCommand) {
			t.Fatalf("pause of an ended conversation: %v, want ErrInvalidCommand", err)
		}
	})
}

// semi_auto sends a confident draft and holds a low-confidence one.
func TestSemiAutoHoldsLowConfidence(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		d := &drafter{confidence: map[int]a2a.Confidence{2: a2a.ConfidenceLow}}
		r := newRig(t, w, rigOptions{draft: d})
		spec := r.spec(converse.SemiAuto)
		spec.Limits.MaxTurns = 2
		c := r.start(spec)
		done := r.drive(ctx(t), c.ID)
		held := r.waitFor(c.ID, "turn 2 held for review", (*converse.Conversation).AwaitingApproval)
		if held.Pending.Turn != 2 || !strings.Contains(held.Pending.Review, "LOW") || len(r.answer.received()) != 1 {
			t.Fatalf("held turn %d (%q) after %d sends, want turn 2 held for LOW after 1", held.Pending.Turn, held.Pending.Review, len(r.answer.received()))
		}
		r.control(c.ID, converse.Command{Kind: converse.CmdApprove})
		c = r.finish(done)
		if c.State != converse.Completed || len(r.answer.received()) != 2 || c.Transcript[0].How != converse.SentAuto || c.Transcript[2].How != converse.SentApproved {
			t.Fatalf("state %s, %d sends, transcript %+v", c.State, len(r.answer.received()), c.Transcript)
		}
	})
}

// pause stops new sends at once, resume goes on, takeover makes the next
// messages human-written.
func TestPauseResumeTakeover(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{gate: make(chan struct{})}
		r := newRig(t, w, rigOptions{answer: a})
		c := r.start(r.spec(converse.FullAuto))
		done := r.drive(ctx(t), c.ID)
		testenv.Eventually(t, "the first send", func() bool { return len(a.received()) == 1 })
		r.control(c.ID, converse.Command{Kind: converse.CmdPause})
		r.waitFor(c.ID, "paused", func(c *converse.Conversation) bool { return c.Status() == converse.Paused })
		a.gate <- struct{}{} // the turn in flight ends; nothing new is sent
		r.waitFor(c.ID, "the reply recorded while paused", func(c *converse.Conversation) bool { return c.Exchanges == 1 })
		time.Sleep(300 * time.Millisecond) // a paused driver must stay quiet: give it the time to misbehave
		if n := len(a.received()); n != 1 {
			t.Fatalf("%d sends while paused, want 1", n)
		}
		r.control(c.ID, converse.Command{Kind: converse.CmdTakeover, By: "alice"})
		r.control(c.ID, converse.Command{Kind: converse.CmdResume})
		r.waitFor(c.ID, "a human turn awaited", func(c *converse.Conversation) bool {
			return c.AwaitingApproval() && c.Pending.Review == "takeover"
		})
		drafts := len(r.draft.seen())
		r.control(c.ID, converse.Command{Kind: converse.CmdApprove, Text: "hello from alice"})
		testenv.Eventually(t, "the human message sent", func() bool { return len(a.received()) == 2 })
		a.gate <- struct{}{}
		r.waitFor(c.ID, "the next human turn awaited", func(c *converse.Conversation) bool {
			return c.AwaitingApproval() && c.Pending.Turn == 3
		})
		r.control(c.ID, converse.Command{Kind: converse.CmdStop})
		c = r.finish(done)
		if got := a.received(); got[1] != "hello from alice" {
			t.Fatalf("remote received %q, want the human text second", got)
		}
		if len(r.draft.seen()) != drafts {
			t.Fatalf("the local agent was asked for drafts after takeover")
		}
		if c.Transcript[2].Role != converse.RoleHuman || c.Transcript[2].How != converse.SentHuman || c.State != converse.Stopped {
			t.Fatalf("transcript %+v state %s", c.Transcript, c.State)
		}
	})
}

// Consecutive failures end the conversation in error once max_failures is
// reached; a failure a retry cannot mend ends it at once.
func TestFailures(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{failWith: a2a.NewError(a2a.CodeExecutionFailed, "remote broke, password=hunter2")}
		r := newRig(t, w, rigOptions{answer: a})
		c := r.finish(r.drive(ctx(t), r.start(r.spec(converse.FullAuto)).ID))
		if c.State != converse.Failed || c.Limit != converse.LimitMaxFailures || len(a.received()) != 3 || len(c.FailedSends) != 3 {
			t.Fatalf("state %s limit %q after %d sends (%d failed), want error by max_failures after 3", c.State, c.Limit, len(a.received()), len(c.FailedSends))
		}
		if strings.Contains(c.Reason, "hunter2") {
			t.Fatalf("the reason %q is not redacted", c.Reason)
		}
		d := &drafter{failWith: a2a.NewError(a2a.CodeInvalidInput, "cannot draft that")}
		r2 := newRig(t, w, rigOptions{draft: d})
		c = r2.finish(r2.drive(ctx(t), r2.start(r2.spec(converse.FullAuto)).ID))
		if c.State != converse.Failed || c.Limit != "" || len(d.seen()) != 1 || !strings.Contains(c.Reason, "INVALID_INPUT") {
			t.Fatalf("state %s limit %q reason %q after %d drafts, want error at once", c.State, c.Limit, c.Reason, len(d.seen()))
		}
	})
}

// Failures follow each code's retry rule: a code that says never ends the
// conversation at once even when its error says retryable; failed work of
// a code this version does not know is tried again up to max_failures (it
// is the conversation's explicit bound), even when its error says not
// retryable.
func TestFailuresFollowTheCodesRule(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		d := &drafter{failWith: &a2a.Error{Code: a2a.CodeInvalidInput, Message: "cannot draft that", Retryable: true}}
		r := newRig(t, w, rigOptions{draft: d})
		c := r.finish(r.drive(ctx(t), r.start(r.spec(converse.FullAuto)).ID))
		if c.State != converse.Failed || c.Limit != "" || len(d.seen()) != 1 {
			t.Fatalf("INVALID_INPUT marked retryable: state %s limit %q after %d drafts, want error at once", c.State, c.Limit, len(d.seen()))
		}
		a := &answerer{failWith: &a2a.Error{Code: "NEWER_FAILURE", Message: "a failure of a newer peer"}}
		r2 := newRig(t, w, rigOptions{answer: a})
		c = r2.finish(r2.drive(ctx(t), r2.start(r2.spec(converse.FullAuto)).ID))
		if c.State != converse.Failed || c.Limit != converse.LimitMaxFailures || len(a.received()) != 3 {
			t.Fatalf("an unknown code: state %s limit %q after %d sends, want error by max_failures after 3", c.State, c.Limit, len(a.received()))
		}
	})
}

// The token budget and the local agent's done flag end a conversation.
func TestTokenBudgetAndDone(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{draft: &drafter{tokens: 10}, answer: &answerer{tokens: 5}})
		spec := r.spec(converse.FullAuto)
		spec.Limits.TokenBudget = 40
		c := r.finish(r.drive(ctx(t), r.start(spec).ID))
		// 2 exchanges use 30; the third draft brings 40: its send is not made.
		if c.State != converse.Completed || c.Limit != converse.LimitTokenBudget || c.Exchanges != 2 || c.TokensUsed != 40 || len(r.answer.received()) != 2 {
			t.Fatalf("state %s limit %q exchanges %d tokens %d, want completed by the budget after 2 (40)", c.State, c.Limit, c.Exchanges, c.TokensUsed)
		}
		r2 := newRig(t, w, rigOptions{draft: &drafter{doneAt: 2}})
		c = r2.finish(r2.drive(ctx(t), r2.start(r2.spec(converse.FullAuto)).ID))
		if c.State != converse.Completed || c.Limit != "" || c.Exchanges != 1 || !strings.Contains(c.Reason, "ended the conversation") {
			t.Fatalf("state %s limit %q exchanges %d reason %q, want completed by the local agent after 1; drafts %+v", c.State, c.Limit, c.Exchanges, c.Reason, r2.draft.seen())
		}
	})
}

// max_duration ends a conversation whose reply does not come, and cancels it.
func TestMaxDuration(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{gate: make(chan struct{})}
		r := newRig(t, w, rigOptions{answer: a})
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxDuration = 700 * time.Millisecond
		c := r.finish(r.drive(ctx(t), r.start(spec).ID))
		if c.State != converse.Completed || c.Limit != converse.LimitMaxDuration || len(a.received()) != 1 {
			t.Fatalf("state %s limit %q after %d sends, want completed by max_duration after 1", c.State, c.Limit, len(a.received()))
		}
	})
}

// A second driver is refused while the first holds the lease.
func TestOneDriver(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{gate: make(chan struct{})}
		r := newRig(t, w, rigOptions{answer: a})
		c := r.start(r.spec(converse.FullAuto))
		done := r.drive(ctx(t), c.ID)
		testenv.Eventually(t, "the first send", func() bool { return len(a.received()) == 1 })
		if _, err := r.orch.Drive(ctx(t), c.ID); !errors.Is(err, converse.ErrDriven) {
			t.Fatalf("second Drive: %v, want ErrDriven", err)
		}
		r.control(c.ID, converse.Command{Kind: converse.CmdStop})
		if c = r.finish(done); c.State != converse.Stopped {
			t.Fatalf("state %s, want stopped", c.State)
		}
	})
}
