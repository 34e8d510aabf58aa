// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/ops/prom"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// keepOpen lets the node close its memory without closing the world's.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

// testConfig is the default configuration on w's exchange, with the ops
// listener on a free loopback port.
func testConfig(w *testworld.World) *config.Config {
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Agent.StopTimeout = time.Second
	cfg.Caller.SweepInterval = 50 * time.Millisecond
	cfg.Ops.Listen = "127.0.0.1:0"
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: not about the policy (policy.default stays deny)
	return cfg
}

// newNode assembles a node on b and w's memory.
func newNode(t *testing.T, cfg *config.Config, w *testworld.World, b bus.Bus) *node.Node {
	t.Helper()
	n, err := node.With(cfg, b, keepOpen{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// startAgent builds and runs agent name with an echo and a fail skill.
func startAgent(t *testing.T, n *node.Node, name string, extra map[string]agent.Handler) *agent.Agent {
	t.Helper()
	a, err := n.Agent(a2a.AgentCard{Name: name, Description: "test agent", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	handlers := map[string]agent.Handler{
		"echo": func(_ context.Context, t *agent.Task) (*agent.Result, error) {
			return agent.TextResult(a2a.MessageText(t.Request.Message)), nil
		},
		"fail": func(context.Context, *agent.Task) (*agent.Result, error) {
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "failed on purpose")
		},
	}
	for k, h := range extra {
		handlers[k] = h
	}
	for skill, h := range handlers {
		if err := a.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, a)
	return a
}

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// value is the value of the metric name with exactly labels in reg, or
// an error when there is none.
func value(reg *prom.Registry, name string, labels map[string]string) (float64, error) {
	return promtest.Value(reg, name, labels)
}
