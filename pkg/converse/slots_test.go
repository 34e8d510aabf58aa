// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/node"
)

// another is a second orchestrator on the rig's world — another process as
// far as working memory and the bus are concerned: its own node, caller
// (another name) and instance.
func (r *rig) another(t *testing.T, leaseTTL time.Duration) *converse.Orchestrator {
	t.Helper()
	n, err := node.With(r.cfg, r.w.Connect(t), keepOpen{r.w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := n.Caller(r.w.N("Converse2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, cl, caller.ErrClosed)
	o, err := converse.New(converse.Options{Caller: cl, Bus: n.Bus, Memory: r.w.Memory, Policy: converse.Policy{Bus: n.Guard},
		LeaseTTL: leaseTTL, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// drive runs o.Drive in the background.
func driveWith(ctx context.Context, o *converse.Orchestrator, id string) <-chan driveResult {
	ch := make(chan driveResult, 1)
	go func() {
		c, err := o.Drive(ctx, id)
		ch <- driveResult{c, err}
	}()
	return ch
}

// waited reports whether conversation c recorded a wait containing text.
func waited(c *converse.Conversation, text string) bool {
	for _, e := range c.Events {
		if e.Kind == converse.EventWait && strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// gate releases blocked handlers once (at the test's end at the latest).
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{ch: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// Two orchestrators (two processes) drive a conversation each with the
// same local agent, whose drafts are held: only one draft request is in
// flight at a time — the other conversation waits for the local agent's
// prompt lock — and both complete once the drafts go through.
func TestOnePromptPerLocalAgentAcrossProcesses(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{leaseTTL: 5 * time.Second})
		o2 := r.another(t, 5*time.Second)
		g := newGate(t)
		var inFlight, most, asked atomic.Int64
		local := w.N("Prompted")
		r.startAgent(local, skillDraft, func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			asked.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			select {
			case <-g.ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return agent.TextResult("a draft"), nil
		})
		spec := r.spec(converse.FullAuto)
		spec.Local, spec.Limits.MaxTurns = local, 1
		c1, c2 := r.start(spec), r.start(spec)
		d1, d2 := r.drive(ctx(t), c1.ID), driveWith(ctx(t), o2, c2.ID)
		const why = "has a draft request in flight"
		testenv.Eventually(t, "one draft request in flight, the other conversation waiting for the prompt lock", func() bool {
			return asked.Load() == 1 && (waited(r.load(c1.ID), why) || waited(r.load(c2.ID), why))
		})
		if n := asked.Load(); n != 1 {
			t.Fatalf("%d draft requests reached the local agent while one waits for the lock, want 1", n)
		}
		g.open()
		for _, d := range []<-chan driveResult{d1, d2} {
			if c := r.finish(d); c.State != converse.Completed || c.Exchanges != 1 {
				t.Fatalf("%s: state %s after %d exchanges: %s", c.ID, c.State, c.Exchanges, c.Reason)
			}
		}
		if most.Load() != 1 || asked.Load() != 2 {
			t.Fatalf("%d draft requests at most in flight of %d, want 1 of 2", most.Load(), asked.Load())
		}
	})
}

// Four conversations of one local agent, driven by two orchestrators, send
// to a remote agent that holds its replies: three sends are in flight
// (DefaultMaxSharedCalls), the fourth waits for a slot and goes once a
// reply frees one.
func TestFourthSharedCallWaits(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		a := &answerer{gate: make(chan struct{})}
		r := newRig(t, w, rigOptions{answer: a, leaseTTL: 5 * time.Second})
		o2 := r.another(t, 5*time.Second)
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxTurns = 1
		var ids []string
		var drives []<-chan driveResult
		for i := range 4 {
			c := r.start(spec)
			ids = append(ids, c.ID)
			if i%2 == 0 {
				drives = append(drives, r.drive(ctx(t), c.ID))
			} else {
				drives = append(drives, driveWith(ctx(t), o2, c.ID))
			}
		}
		waiting := func() bool {
			for _, id := range ids {
				if waited(r.load(id), "shared calls in flight") {
					return true
				}
			}
			return false
		}
		testenv.Eventually(t, "three sends in flight and one waiting", func() bool { return len(a.received()) == 3 && waiting() })
		if n := len(a.received()); n != 3 {
			t.Fatalf("%d sends reached the remote while one waits for a slot, want 3", n)
		}
		close(a.gate)
		for _, d := range drives {
			if c := r.finish(d); c.State != converse.Completed || c.Exchanges != 1 {
				t.Fatalf("%s: state %s after %d exchanges: %s", c.ID, c.State, c.Exchanges, c.Reason)
			}
		}
		if n := len(a.received()); n != 4 {
			t.Fatalf("the remote got %d sends, want 4", n)
		}
	})
}

// The local call's timeout: 60s without tool use, 120s with, each the
// bound of an explicit one; the draft request and the task's deadline
// carry the one chosen.
func TestLocalTimeoutFollowsToolUse(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{})
		var mu sync.Mutex
		var reqs []converse.DraftRequest
		var left []time.Duration
		local := w.N("Tooler")
		r.startAgent(local, skillDraft, func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
			var req converse.DraftRequest
			if err := t.DecodeInput(&req); err != nil {
				return nil, err
			}
			dl, _ := ctx.Deadline()
			mu.Lock()
			reqs, left = append(reqs, req), append(left, time.Until(dl))
			mu.Unlock()
			return agent.TextResult("a draft"), nil
		})
		for _, c := range []struct {
			tools bool
			set   time.Duration
			want  time.Duration
			err   string
		}{
			{false, 0, converse.DefaultLocalTimeout, ""},
			{true, 0, converse.DefaultToolUseTimeout, ""},
			{true, 90 * time.Second, 90 * time.Second, ""},
			{false, 90 * time.Second, 0, "local timeout 1m30s is above 1m0s, the bound without tool use"},
			{true, 3 * time.Minute, 0, "local timeout 3m0s is above 2m0s, the bound with tool use"},
		} {
			spec := r.spec(converse.FullAuto)
			spec.Local, spec.AllowToolUse, spec.Limits.LocalTimeout = local, c.tools, c.set
			cv, err := r.orch.Start(ctx(t), spec)
			if c.err != "" {
				if !errors.Is(err, converse.ErrInvalidSpec) || !strings.Contains(err.Error(), c.err) {
					t.Errorf("tools %v, %s: %v, want ErrInvalidSpec saying %q", c.tools, c.set, err, c.err)
				}
				continue
			}
			if err != nil || cv.Spec.Limits.LocalTimeout != c.want {
				t.Errorf("tools %v, %s: local timeout %v (%v), want %s", c.tools, c.set, cv, err, c.want)
			}
		}
		spec := r.spec(converse.FullAuto)
		spec.Local, spec.AllowToolUse, spec.Limits.MaxTurns = local, true, 1
		if c := r.finish(r.drive(ctx(t), r.start(spec).ID)); c.State != converse.Completed {
			t.Fatalf("state %s: %s", c.State, c.Reason)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reqs) != 1 || !reqs[0].Constraints.AllowToolUse || reqs[0].Constraints.LocalTimeoutMs != 120_000 {
			t.Fatalf("draft requests %+v, want one allowing tools within 120000ms", reqs)
		}
		if left[0] <= converse.DefaultLocalTimeout || left[0] > converse.DefaultToolUseTimeout {
			t.Fatalf("the draft task had %s left, want more than 60s and at most 120s", left[0])
		}
	})
}

// A local agent that takes a draft request and never answers (hung, or
// killed mid-run) times out: the conversation ends in error at the first
// failure, naming the agent as unavailable — not retried up to
// max_failures behind the person's back. Once the agent answers again,
// the person's Reopen puts the conversation back at its turn and it
// completes; a conversation that ended otherwise is not reopened.
func TestUnavailableLocalAgentEndsInError(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newRig(t, w, rigOptions{})
		local := w.N("Hung")
		var asked atomic.Int64
		g := newGate(t)
		r.startAgent(local, skillDraft, func(context.Context, *agent.Task) (*agent.Result, error) {
			if asked.Add(1) == 1 {
				<-g.ch // deaf to its deadline, as a dead process is
				return nil, a2a.NewError(a2a.CodeExecutionFailed, "too late")
			}
			return agent.TextResult("a draft"), nil
		})
		t.Cleanup(g.open) // before the agent's stop (cleanups run last first)
		spec := r.spec(converse.FullAuto)
		spec.Local, spec.Limits.LocalTimeout, spec.Limits.MaxFailures, spec.Limits.MaxTurns = local, time.Second, 3, 1
		c := r.finish(r.drive(ctx(t), r.start(spec).ID))
		if c.State != converse.Failed || c.Cause != converse.CauseLocalUnavailable || c.Failures != 1 ||
			!strings.Contains(c.Reason, fmt.Sprintf("local agent %s is unavailable", local)) || !strings.Contains(c.Reason, "converse resume "+c.ID) {
			t.Fatalf("state %s, cause %q, %d failures: %s; want error, %s, 1 failure", c.State, c.Cause, c.Failures, c.Reason, converse.CauseLocalUnavailable)
		}
		if n := asked.Load(); n != 1 {
			t.Fatalf("the local agent was asked %d times, want once", n)
		}
		g.open()
		if _, err := r.orch.Reopen(ctx(t), c.ID, "tester"); err != nil {
			t.Fatal(err)
		}
		c = r.finish(r.drive(ctx(t), c.ID))
		if c.State != converse.Completed || c.Exchanges != 1 || c.Cause != "" || len(r.answer.received()) != 1 {
			t.Fatalf("reopened: state %s, %d exchanges, cause %q: %s", c.State, c.Exchanges, c.Cause, c.Reason)
		}
		if _, err := r.orch.Reopen(ctx(t), c.ID, "tester"); !errors.Is(err, converse.ErrInvalidCommand) {
			t.Fatalf("reopen of a completed conversation: %v, want ErrInvalidCommand", err)
		}
	})
}
