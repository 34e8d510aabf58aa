// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// fakePart runs until its context ends, or fails with err after failAfter.
type fakePart struct {
	name      string
	log       *testenv.Events
	err       error
	failAfter time.Duration
	closed    int
}

func (p *fakePart) Run(ctx context.Context) error {
	if p.err != nil {
		select {
		case <-time.After(p.failAfter):
			p.log.Add(p.name + " failed")
			return p.err
		case <-ctx.Done():
		}
	}
	<-ctx.Done()
	time.Sleep(2 * time.Millisecond) // a part that takes a moment to stop is still waited for
	p.log.Add(p.name + " stopped")
	return nil
}

func (p *fakePart) Close() error { p.closed++; p.log.Add(p.name + " closed"); return nil }

func embeddedNode(t *testing.T) *Node {
	t.Helper()
	cfg := config.Default()
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy
	n, err := Open(context.Background(), cfg, "host-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// busClosed reports whether n's bus refuses work: the node was closed.
func busClosed(n *Node) bool {
	err := n.Bus.Declare(context.Background(), bus.QueueSpec{Name: "host-test-probe", Kind: bus.KindInstance})
	return err != nil
}

func TestHostStopsTiersInOrderThenClosesTheNode(t *testing.T) {
	n := embeddedNode(t)
	h := NewHost(n)
	var log testenv.Events
	tiers := []struct {
		tier Tier
		name string
	}{ // added out of order: the tier decides
		{TierDirectory, "dir"}, {TierCallers, "caller"}, {TierEntry, "agent"}, {TierBackends, "process"}, {TierWork, "session"}, {TierEntry, "server"},
	}
	parts := map[string]*fakePart{}
	for _, x := range tiers {
		p := &fakePart{name: x.name, log: &log}
		parts[x.name] = p
		if err := h.Add(x.tier, x.name, p); err != nil {
			t.Fatal(err)
		}
	}
	// A real agent and caller on the same host stop with their tiers.
	if _, err := h.Agent(a2a.AgentCard{Name: "HostEcho", Version: "1"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Caller("HostCaller"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	time.Sleep(50 * time.Millisecond)
	if busClosed(n) {
		t.Fatal("the node was closed while the host runs")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a clean stop returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the host did not stop")
	}
	order := []string{"agent", "server", "session", "caller", "process", "dir"}
	for i := 1; i < len(order); i++ {
		before, after := order[i-1], order[i]
		if before == "agent" { // agent and server share a tier: both before the session
			continue
		}
		if log.Index(before+" closed") > log.Index(after+" stopped") {
			t.Errorf("%s stopped before %s was closed: %v", after, before, log.List())
		}
	}
	for _, p := range parts {
		if p.closed != 1 {
			t.Errorf("%s closed %d times, want once", p.name, p.closed)
		}
		if log.Index(p.name+" stopped") > log.Index(p.name+" closed") {
			t.Errorf("%s closed before its run returned: %v", p.name, log.List())
		}
	}
	if log.Index("agent closed") > log.Index("session stopped") || log.Index("server closed") > log.Index("session stopped") {
		t.Errorf("the work tier stopped before the entry tier was done: %v", log.List())
	}
	if !busClosed(n) {
		t.Error("the node was not closed after the parts")
	}
	if err := h.Close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
}

func TestHostStopsWhenAPartFails(t *testing.T) {
	h := NewHost(embeddedNode(t))
	var log testenv.Events
	boom := errors.New("consumer lost")
	failing := &fakePart{name: "caller", log: &log, err: boom, failAfter: 10 * time.Millisecond}
	other := &fakePart{name: "agent", log: &log}
	_ = h.Add(TierCallers, "caller X", failing)
	_ = h.Add(TierEntry, "agent X", other)
	done := make(chan error, 1)
	go func() { done <- h.Run(context.Background()) }()
	select {
	case err := <-done:
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "caller X: consumer lost") {
			t.Fatalf("Run = %v, want the failed part named with its error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a failed part did not stop the host")
	}
	if log.Index("agent stopped") < 0 || other.closed != 1 {
		t.Fatalf("the other parts were not stopped: %v", log.List())
	}
}

func TestServeOnClosesWhatWasBuiltWhenBuildFails(t *testing.T) {
	n := embeddedNode(t)
	var log testenv.Events
	built := &fakePart{name: "agent", log: &log}
	bad := errors.New("bad agent file")
	err := ServeOn(context.Background(), n, func(_ context.Context, h *Host) error {
		if err := h.Add(TierEntry, "agent", built); err != nil {
			return err
		}
		return bad
	})
	if !errors.Is(err, bad) {
		t.Fatalf("ServeOn = %v, want the build error", err)
	}
	if built.closed != 1 || !busClosed(n) {
		t.Fatalf("build failure left parts or the node open: closed=%d", built.closed)
	}
	if err := NewHost(n).Add(TierEntry, "late", &fakePart{name: "late", log: &log}); err != nil {
		t.Fatalf("a new host on a closed node: %v", err) // adding is allowed; running fails on the bus
	}
}

func TestHostAddAfterCloseClosesThePart(t *testing.T) {
	h := NewHost(embeddedNode(t))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var log testenv.Events
	p := &fakePart{name: "late", log: &log}
	if err := h.Add(TierEntry, "late", p); !errors.Is(err, ErrHostClosed) {
		t.Fatalf("Add after Close = %v, want ErrHostClosed", err)
	}
	if p.closed != 1 {
		t.Fatal("a part refused by a closed host was not closed")
	}
}

func TestHostVetsThroughOneDirectoryWithTheConfiguredWait(t *testing.T) {
	cfg := config.Default()
	cfg.Directory.VetWait = 3 * time.Second
	n, err := Open(context.Background(), cfg, "host-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(n)
	defer func() { _ = h.Close() }()
	d1, err := h.Directory(Lister)
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Resolver()
	if err != nil {
		t.Fatal(err)
	}
	if r.Directory != d1 || r.Wait != 3*time.Second {
		t.Fatalf("resolver %p wait %s; want the host's directory %p and directory.vet_wait", r.Directory, r.Wait, d1)
	}
	h.SetVetWait(250 * time.Millisecond)
	if r, _ := h.Resolver(); r.Wait != 250*time.Millisecond {
		t.Fatalf("SetVetWait not applied: %s", r.Wait)
	}
	if _, err := h.Caller("A"); err != nil {
		t.Fatal(err)
	}
	if d2, _ := h.Directory(Vetter); d2 != d1 {
		t.Fatal("a second directory was built")
	}
}

// An agent built on a host that already runs gets its skills before it
// starts taking tasks (the demo adds the Orchestrator this way).
func TestHostAgentAddedLateHasItsSkills(t *testing.T) {
	h := NewHost(embeddedNode(t))
	defer func() { _ = h.Close() }()
	c, err := h.Caller("LateCaller")
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	card := a2a.AgentCard{Name: "LateEcho", Version: "1", Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo"}}}
	if _, err := h.Agent(card, func(a *agent.Agent) error {
		return a.Handle("echo", func(_ context.Context, t *agent.Task) (*agent.Result, error) {
			return agent.TextResult("late " + t.Text()), nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.Call(ctx, caller.Request{Target: "LateEcho", Skill: "echo", Text: "hi"}, nil)
	if err != nil || out.Err() != nil {
		t.Fatalf("call: %v %v", err, out.Err())
	}
}

// TestServeOnReleasesStartUpMemory: once the parts have started, a
// long-running program returns its start-up's garbage to the operating
// system (releaseMemory).
func TestServeOnReleasesStartUpMemory(t *testing.T) {
	released := make(chan struct{}, 1)
	savedAfter, savedRelease := settleAfter, releaseMemory
	t.Cleanup(func() { settleAfter, releaseMemory = savedAfter, savedRelease })
	releaseMemory = func() { released <- struct{}{} }

	settleAfter = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ServeOn(ctx, embeddedNode(t), func(context.Context, *Host) error { return nil }) }()
	select {
	case <-released:
	case err := <-served:
		t.Fatalf("ServeOn returned %v without releasing the start-up's memory", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the start-up's memory was not released while serving")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
