// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/tools"
)

// A process that answers list_known_agents (a Lister: chat, mcp, the
// Primary) and restarts lists, right after its start, the agents it knew
// before, from the listing its directory shared in Redis — here an agent
// that stopped with the first process, so nothing announces it again — and
// its first list_known_agents comes after its first discovery round
// (not warming).
func TestRestartedListerListsTheAgentsItKnew(t *testing.T) {
	w := testworld.Real(t)
	name := w.N("Known")
	cfg := config.Default()
	cfg.Bus.URL, cfg.Bus.Exchange = w.AMQPURL, w.Exchange
	cfg.Redis.URL, cfg.Redis.KeyPrefix = w.RedisURL, w.KeyPrefix
	cfg.Directory.WellKnownFile = ""
	ctx := context.Background()

	n1, err := Open(ctx, cfg, "listing-test-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	h1 := NewHost(n1)
	defer func() { _ = h1.Close() }()
	d1, err := h1.Directory(Lister)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h1.Agent(a2a.AgentCard{Name: name, Version: "1", Skills: []a2a.AgentSkill{{ID: "echo", Name: "echo"}}},
		func(a *agent.Agent) error {
			return a.Handle("echo", func(context.Context, *agent.Task) (*agent.Result, error) { return agent.TextResult("ok"), nil })
		}); err != nil {
		t.Fatal(err)
	}
	h1.Start(ctx)
	testenv.Eventually(t, "the first process lists "+name, func() bool {
		e, ok := d1.Lookup(name)
		return ok && e.Status == directory.StatusOnline
	}, testenv.WakeOn(d1.Changes()))
	if err := h1.Close(); err != nil { // the agent stops; the directory writes the shared listing
		t.Fatal(err)
	}

	n2, err := Open(ctx, cfg, "listing-test-2", nil)
	if err != nil {
		t.Fatal(err)
	}
	h2 := NewHost(n2)
	defer func() { _ = h2.Close() }()
	d2, err := h2.Directory(Lister)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.New(tools.Deps{Agents: tools.DirectoryLister{Directory: d2}, SessionID: "listing-test", Only: []string{"list_known_agents"},
		WarmWait: time.Minute}) // a loaded machine may take its time: the bound is not what is tested
	if err != nil {
		t.Fatal(err)
	}
	h2.Start(ctx)
	out, err := set.Dispatch(ctx, "list_known_agents", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var page tools.AgentList
	if err := json.Unmarshal(out, &page); err != nil {
		t.Fatalf("list_known_agents = %s: %v", out, err)
	}
	if page.Warming || page.Total != 1 || page.Agents[0].Name != name || len(page.Agents[0].Skills) != 1 || page.Agents[0].LastSeen == "" {
		t.Fatalf("the restarted process's first list_known_agents = %s, want %s (known before the restart), not warming", out, name)
	}
}
