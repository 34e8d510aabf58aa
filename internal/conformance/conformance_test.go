// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/conformance"
	"github.com/a2abus/a2abus/internal/conformance/conformancetest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/node"
)

// serveSample runs SampleAgent named name on w's real broker and returns a
// function that stops it and waits for it to return.
func serveSample(t *testing.T, w *testworld.World, name, kit string) func(context.Context) error {
	t.Helper()
	cfg := config.Default()
	allowKit(cfg, kit, name)
	cfg.Bus.URL, cfg.Bus.Exchange = w.AMQPURL, w.Exchange
	cfg.Redis.URL, cfg.Redis.KeyPrefix = w.RedisURL, w.KeyPrefix
	cfg.Agent.StopTimeout = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agents.Serve(ctx, cfg, agents.KindSample, name, zap.NewNop()) }()
	stopped := false
	stop := func(wctx context.Context) error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-wctx.Done():
			return wctx.Err()
		}
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return stop
}

// The Go reference agent meets every requirement, deregistration included;
// it never asks its caller anything, so the checks of questions and later
// turns are skipped, and it conforms all the same.
func TestSampleAgentConforms(t *testing.T) {
	w := testworld.Real(t)
	name := w.N("ConfSample")
	kit := w.N("ConfKit")
	stop := serveSample(t, w, name, kit)
	rep := conformancetest.RequireAllBut(t, conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: name, Caller: kit, Stop: stop, Timeout: 20 * time.Second,
	}, "question", "later-turn", "turn-from-history", "attempt-echo")
	if rep.Failed() || len(rep.Results) != 24 {
		t.Errorf("report failed=%v with %d results, want 24 and no failure", rep.Failed(), len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.ID == "question" && !strings.Contains(r.Detail, "optional for agents") {
			t.Errorf("question skipped saying %q, want that asking is optional", r.Detail)
		}
	}
}

// An agent that is not running fails at once, with reasons, and the
// report says it does not conform.
func TestAbsentAgentFails(t *testing.T) {
	w := testworld.Real(t)
	rep, err := conformance.Run(context.Background(), conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: w.N("ConfNobody"), Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Fatal("a missing agent conforms")
	}
	byID := map[string]conformance.Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	if d := byID["discovery"]; d.Outcome != conformance.Fail || !strings.Contains(d.Detail, "unroutable") {
		t.Errorf("discovery: %+v", d)
	}
	if r := byID["round-trip"]; r.Outcome != conformance.Fail || !strings.Contains(r.Detail, "unroutable") {
		t.Errorf("round-trip: %+v", r)
	}
	if r := byID["deregistration"]; r.Outcome != conformance.Fail && r.Outcome != conformance.Skip {
		t.Errorf("deregistration: %+v", r)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"outcome": "fail"`) {
		t.Errorf("json report: %v\n%s", err, &js)
	}
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []conformance.Options{
		{Agent: "X"}, // no URL
		{URL: "amqp://127.0.0.1:1/", Agent: "has.dot"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", Skill: "bad skill"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", QueueType: "stream"},
		{URL: "amqp://127.0.0.1:1/", Agent: "X", Caller: "x"},
	} {
		if _, err := conformance.Run(context.Background(), o); !errors.Is(err, conformance.ErrInvalidOptions) {
			t.Errorf("%+v: got %v, want ErrInvalidOptions", o, err)
		}
	}
}

// askingAgent serves SampleAgent's skills and clarify — which asks how to
// greet the text, then greets on the next turn from the request's history
// alone — named name on w's real broker; the function returned stops it.
func askingAgent(t *testing.T, w *testworld.World, name, kit string) func(context.Context) error {
	t.Helper()
	cfg := config.Default()
	allowKit(cfg, kit, name)
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	n, err := node.With(cfg, w.Connect(t), keepOpen{w.Memory}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	card := sample.Card(name)
	card.Skills = append(card.Skills, a2a.AgentSkill{ID: "clarify", Name: "Clarify", Description: "asks how to greet"})
	a, err := n.Agent(card)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Register(a, nil); err != nil {
		t.Fatal(err)
	}
	err = a.Handle("clarify", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		if task.Turn() == 0 {
			return agent.Ask("How shall I greet "+task.Text()+"?", a2a.Option{ID: "formal", Label: "Formal"}, a2a.Option{ID: "casual", Label: "Casual"}), nil
		}
		if h := task.History(); len(h) > 0 && task.Text() == "formal" {
			return agent.TextResult("Good day, " + a2a.MessageText(h[0]) + "."), nil
		}
		return agent.Ask("Formal or casual?", a2a.Option{ID: "formal", Label: "Formal"}, a2a.Option{ID: "casual", Label: "Casual"}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	stopped := false
	stop := func(ctx context.Context) error {
		if stopped {
			return nil
		}
		stopped = true
		_ = a.Close()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	return stop
}

// allowKit lets the kit's caller call the agent under test: the agent
// checks the policy (deny by default) before it runs a task.
func allowKit(cfg *config.Config, kit, agent string) {
	cfg.Policy.Rules = append(cfg.Policy.Rules, config.PolicyRule{Caller: kit, Allow: []string{agent}})
}

// keepOpen leaves the world's memory open when a node closes.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

// An agent that asks its caller passes every check, those of its question
// and later turns included.
func TestAgentThatAsksConforms(t *testing.T) {
	w := testworld.Real(t)
	name := w.N("ConfAsks")
	kit := w.N("ConfKit")
	stop := askingAgent(t, w, name, kit)
	rep := conformancetest.RequireAll(t, conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: name, Caller: kit, Stop: stop, Timeout: 20 * time.Second,
	})
	if len(rep.Results) != 24 {
		t.Errorf("%d results, want 24", len(rep.Results))
	}
}
