package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/a2abus/a2abus/pkg/tools"
)

func TestListKnownAgents(t *testing.T) {
	f := newFixture(t, nil)
	f.agents.agents = []tools.AgentInfo{
		{Name: "ResearchAgent", Description: "Researches topics.", Version: "1.0",
			Skills: []tools.SkillInfo{{ID: "research", Name: "Research", Description: "Search and synthesise."}},
			Status: tools.StatusWellKnown, LastSeen: "well-known (not yet seen this session)"},
		{Name: "Echo", Version: "2.1", Status: tools.StatusOnline, Instances: 2, LastSeen: "2025-01-02T03:04:05Z (10s ago)"},
	}
	out, err := f.set.Dispatch(context.Background(), "list_known_agents", json.RawMessage(`{"skill":"research","query":"web"}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.agents.skill != "research" || f.agents.query != "web" {
		t.Fatalf("lister got skill %q query %q", f.agents.skill, f.agents.query)
	}
	want := `[{"name":"ResearchAgent","description":"Researches topics.","version":"1.0",` +
		`"skills":[{"id":"research","name":"Research","description":"Search and synthesise."}],` +
		`"status":"well-known","instances":0,"lastSeen":"well-known (not yet seen this session)"},` +
		`{"name":"Echo","description":"","version":"2.1","skills":[],"status":"online","instances":2,"lastSeen":"2025-01-02T03:04:05Z (10s ago)"}]`
	if string(out) != want {
		t.Fatalf("list_known_agents =\n%s\nwant\n%s", out, want)
	}
	if f.agents.agents[1].Skills != nil {
		t.Fatal("list_known_agents changed the lister's agents")
	}
}

func TestListKnownAgentsEmpty(t *testing.T) {
	f := newFixture(t, nil)
	out, err := f.set.Dispatch(context.Background(), "list_known_agents", nil)
	if err != nil || string(out) != "[]" {
		t.Fatalf("list_known_agents with no agents = %s, %v; want []", out, err)
	}
	if f.agents.skill != "" || f.agents.query != "" {
		t.Fatalf("filters %q %q, want none", f.agents.skill, f.agents.query)
	}
}
