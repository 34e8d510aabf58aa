// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/node"
)

// Skills of the test agents.
const (
	skillDraft  = "draft"
	skillAnswer = "answer"
)

// keepOpen shares the world's memory with nodes whose Close must not close it.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

// drafter is a local agent: its draft names the turn and quotes the remote
// message it was given (from its structured input), so a test can follow
// what reached it.
type drafter struct {
	mu sync.Mutex
	// confidence per turn (default HIGH); tokens per draft; doneAt ends
	// the conversation at that turn; failWith fails every draft.
	confidence map[int]a2a.Confidence
	tokens     int64
	doneAt     int
	failWith   *a2a.Error
	requests   []converse.DraftRequest
	// onDraft, when set, runs as each draft is asked for.
	onDraft func()
}

func (d *drafter) handle(_ context.Context, t *agent.Task) (*agent.Result, error) {
	var req converse.DraftRequest
	if err := t.DecodeInput(&req); err != nil {
		return nil, err
	}
	if d.onDraft != nil {
		d.onDraft()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.requests = append(d.requests, req)
	if d.failWith != nil {
		return nil, d.failWith
	}
	r := agent.TextResult(fmt.Sprintf("turn %d: question about %s (after a reply of %d chars)", req.TurnIndex, req.Objective, len(req.RemoteMessage)))
	r.Confidence = a2a.ConfidenceHigh
	if c, ok := d.confidence[req.TurnIndex]; ok {
		r.Confidence = c
	}
	r.TokensUsed = d.tokens
	if d.doneAt == req.TurnIndex {
		r.Extra = map[string]any{"done": true}
	}
	return r, nil
}

func (d *drafter) seen() []converse.DraftRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]converse.DraftRequest(nil), d.requests...)
}

// answerer is a remote agent: it records every message it receives and
// answers it; gate, when set, holds each answer until a value comes.
type answerer struct {
	mu       sync.Mutex
	got      []string
	tokens   int64
	failWith *a2a.Error
	gate     chan struct{}
	handoffs []string
}

func (a *answerer) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	a.mu.Lock()
	a.got = append(a.got, t.Text())
	a.handoffs = append(a.handoffs, string(t.Request.Handoff))
	gate, fail := a.gate, a.failWith
	a.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	r := agent.TextResult("answer to: " + t.Text())
	r.TokensUsed = a.tokens
	r.Confidence = a2a.ConfidenceMedium
	return r, nil
}

func (a *answerer) received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

// rig is a world with a local and a remote test agent, a running caller
// and an orchestrator allowed to make the pair converse.
type rig struct {
	t              testing.TB
	w              *testworld.World
	n              *node.Node
	local, remote  string
	draft          *drafter
	answer         *answerer
	caller         *caller.Caller
	orch           *converse.Orchestrator
	events         chan converse.Event
	cfg            *config.Config
	orchestratorAs string
}

// rigOptions tune a rig before its parts start.
type rigOptions struct {
	draft  *drafter
	answer *answerer
	policy *converse.Policy
	// leaseTTL is the orchestrator's (default 600ms).
	leaseTTL time.Duration
	// memory, when set, wraps the world's memory for the orchestrator.
	memory func(memory.Memory) memory.Memory
}

// rigs numbers the rigs, so that two rigs of one world have agents of their
// own (one queue each, not one shared by both rigs' drafters).
var rigs atomic.Int64

func newRig(t testing.TB, w *testworld.World, o rigOptions) *rig {
	t.Helper()
	id := rigs.Add(1)
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Caller.SweepInterval = 50 * time.Millisecond
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy (policy.default stays deny)
	cfg.Agent.StopTimeout = time.Second
	n, err := node.With(cfg, w.Connect(t), keepOpen{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, w: w, n: n, cfg: cfg, local: w.N(fmt.Sprint("Drafter", id)), remote: w.N(fmt.Sprint("Answerer", id)),
		draft: o.draft, answer: o.answer, events: make(chan converse.Event, 1000), orchestratorAs: w.N("Converse")}
	if r.draft == nil {
		r.draft = &drafter{}
	}
	if r.answer == nil {
		r.answer = &answerer{}
	}
	r.startAgent(r.local, skillDraft, r.draft.handle)
	r.startAgent(r.remote, skillAnswer, r.answer.handle)
	r.caller, err = n.Caller(r.orchestratorAs, nil)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, r.caller, caller.ErrClosed)
	policy := converse.Policy{Bus: n.Guard}
	if o.policy != nil {
		policy = *o.policy
	}
	mem := w.Memory
	if o.memory != nil {
		mem = o.memory(mem)
	}
	r.orch, err = converse.New(converse.Options{
		Caller: r.caller, Bus: n.Bus, Memory: mem, Policy: policy,
		LeaseTTL: cmp.Or(o.leaseTTL, 600*time.Millisecond), PollInterval: 100 * time.Millisecond,
		OnEvent: func(_ *converse.Conversation, e converse.Event) {
			select {
			case r.events <- e:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.orch.Close() })
	return r
}

func (r *rig) startAgent(name, skill string, h agent.Handler) {
	r.t.Helper()
	a, err := r.n.Agent(a2a.AgentCard{Name: name, Description: "test agent", Version: "1.0",
		Skills: []a2a.AgentSkill{{ID: skill, Name: skill, Description: "test skill"}}})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := a.Handle(skill, h); err != nil {
		r.t.Fatal(err)
	}
	testworld.Start(r.t, a)
}

// spec is a conversation of the rig's pair, allowed by consent.
func (r *rig) spec(mode converse.Mode) converse.Spec {
	return converse.Spec{Local: r.local, LocalSkill: skillDraft, Remote: r.remote, RemoteSkill: skillAnswer,
		Objective: "review this API", Mode: mode, Consent: true, Requester: "tester"}
}

// start records a conversation of spec.
func (r *rig) start(spec converse.Spec) *converse.Conversation {
	r.t.Helper()
	c, err := r.orch.Start(ctx(r.t), spec)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// drive runs Drive in the background; the channel gets its outcome.
type driveResult struct {
	c   *converse.Conversation
	err error
}

func (r *rig) drive(ctx context.Context, id string) <-chan driveResult {
	ch := make(chan driveResult, 1)
	go func() {
		c, err := r.orch.Drive(ctx, id)
		ch <- driveResult{c, err}
	}()
	return ch
}

// finish waits for a drive's end.
func (r *rig) finish(ch <-chan driveResult) *converse.Conversation {
	r.t.Helper()
	select {
	case res := <-ch:
		if res.err != nil {
			r.t.Fatalf("drive: %v", res.err)
		}
		return res.c
	case <-time.After(30 * time.Second):
		r.t.Fatal("drive did not end within 30s")
	}
	return nil
}

// load reads a conversation's record.
func (r *rig) load(id string) *converse.Conversation {
	r.t.Helper()
	c, err := converse.Load(ctx(r.t), r.w.Memory, id)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// waitFor waits until the record satisfies cond.
func (r *rig) waitFor(id, what string, cond func(*converse.Conversation) bool) *converse.Conversation {
	r.t.Helper()
	var c *converse.Conversation
	testenv.Eventually(r.t, what, func() bool { c = r.load(id); return cond(c) })
	return c
}

// control sends a command, which must reach a driver.
func (r *rig) control(id string, cmd converse.Command) {
	r.t.Helper()
	if _, err := converse.Send(ctx(r.t), r.n.Bus, r.w.Memory, id, cmd); err != nil {
		r.t.Fatalf("send %s: %v", cmd.Kind, err)
	}
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// texts are the texts of a transcript's entries of role.
func texts(c *converse.Conversation, role string) []string {
	var out []string
	for _, e := range c.Transcript {
		if e.Role == role {
			out = append(out, e.Text)
		}
	}
	return out
}

func hasPrefixes(got []string, prefixes ...string) bool {
	if len(got) != len(prefixes) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], prefixes[i]) {
			return false
		}
	}
	return true
}

var _ = errors.Is
