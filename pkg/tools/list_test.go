// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

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
	want := `{"agents":[` +
		`{"name":"Echo","description":"","version":"2.1","skills":[],"status":"online","instances":2,"lastSeen":"2025-01-02T03:04:05Z (10s ago)"},` +
		`{"name":"ResearchAgent","description":"Researches topics.","version":"1.0",` +
		`"skills":[{"id":"research","name":"Research","description":"Search and synthesise."}],` +
		`"status":"well-known","instances":0,"lastSeen":"well-known (not yet seen this session)"}` +
		`],"total":2}`
	if string(out) != want {
		t.Fatalf("list_known_agents =\n%s\nwant\n%s", out, want)
	}
	if f.agents.agents[1].Skills != nil || f.agents.agents[0].Name != "ResearchAgent" {
		t.Fatal("list_known_agents changed the lister's agents")
	}
}

func TestListKnownAgentsEmpty(t *testing.T) {
	f := newFixture(t, nil)
	out, err := f.set.Dispatch(context.Background(), "list_known_agents", nil)
	if want := `{"agents":[],"total":0}`; err != nil || string(out) != want {
		t.Fatalf("list_known_agents with no agents = %s, %v; want %s", out, err, want)
	}
	if f.agents.skill != "" || f.agents.query != "" {
		t.Fatalf("filters %q %q, want none", f.agents.skill, f.agents.query)
	}
}

// list calls list_known_agents and decodes its page.
func list(t *testing.T, f *fixture, args string) tools.AgentList {
	t.Helper()
	out, err := f.set.Dispatch(context.Background(), "list_known_agents", json.RawMessage(args))
	if err != nil {
		t.Fatalf("list_known_agents(%s): %v", args, err)
	}
	var page tools.AgentList
	if err := json.Unmarshal(out, &page); err != nil {
		t.Fatalf("list_known_agents(%s) = %s: %v", args, out, err)
	}
	return page
}

func pageNames(p tools.AgentList) []string {
	var out []string
	for _, a := range p.Agents {
		out = append(out, a.Name)
	}
	return out
}

// TestListKnownAgentsPages: the pages, followed by nextCursor, list every
// agent once in name order; each says how many match in all, and the last
// has no nextCursor.
func TestListKnownAgentsPages(t *testing.T) {
	f := newFixture(t, nil)
	var all []string
	for i := range 45 {
		name := fmt.Sprintf("Agent%02d", i)
		if i%2 == 1 {
			name = strings.ToLower(name) // the order ignores case
		}
		all = append(all, name)
		f.agents.agents = append(f.agents.agents, tools.AgentInfo{Name: name, Status: tools.StatusOnline})
	}
	rand.Shuffle(len(f.agents.agents), func(i, j int) { f.agents.agents[i], f.agents.agents[j] = f.agents.agents[j], f.agents.agents[i] })

	var got []string
	var sizes []int
	args := `{}`
	for range 10 {
		page := list(t, f, args)
		if page.Total != 45 {
			t.Fatalf("total = %d, want 45", page.Total)
		}
		got = append(got, pageNames(page)...)
		sizes = append(sizes, len(page.Agents))
		if page.NextCursor == "" {
			break
		}
		args = `{"cursor":"` + page.NextCursor + `"}`
	}
	if !slices.Equal(sizes, []int{20, 20, 5}) || !slices.Equal(got, all) {
		t.Fatalf("pages of %v listed\n%v\nwant pages of [20 20 5] listing\n%v", sizes, got, all)
	}

	// A limit sets the page size; a cursor stays valid while agents come and go.
	first := list(t, f, `{"limit":3}`)
	if !slices.Equal(pageNames(first), all[:3]) || first.NextCursor == "" {
		t.Fatalf("limit 3: %v next %q", pageNames(first), first.NextCursor)
	}
	f.agents.agents = slices.DeleteFunc(f.agents.agents, func(a tools.AgentInfo) bool { return a.Name == "agent01" || a.Name == "agent03" })
	f.agents.agents = append(f.agents.agents, tools.AgentInfo{Name: "Agent00a"}, tools.AgentInfo{Name: "Agent02a"})
	next := list(t, f, `{"limit":3,"cursor":"`+first.NextCursor+`"}`)
	if want := []string{"Agent02a", "Agent04", "agent05"}; !slices.Equal(pageNames(next), want) {
		t.Errorf("after agents changed, the next page lists %v, want %v", pageNames(next), want)
	}
	if next.Total != 45 {
		t.Errorf("total = %d, want 45", next.Total)
	}
	last := list(t, f, `{"limit":100}`)
	if len(last.Agents) != 45 || last.NextCursor != "" {
		t.Errorf("limit 100: %d agents, next %q; want all 45 and no nextCursor", len(last.Agents), last.NextCursor)
	}
}

// TestListKnownAgentsBoundsCards: one agent's huge card cannot flood the
// model's context: its descriptions are cut and its skills capped.
func TestListKnownAgentsBoundsCards(t *testing.T) {
	f := newFixture(t, nil)
	huge := tools.AgentInfo{Name: "Huge", Description: strings.Repeat("é", 10_000), Version: strings.Repeat("v", 1000), Status: tools.StatusOnline}
	for i := range 300 {
		huge.Skills = append(huge.Skills, tools.SkillInfo{ID: fmt.Sprint("s", i), Name: strings.Repeat("n", 1000), Description: strings.Repeat("d", 10_000)})
	}
	short := tools.AgentInfo{Name: "Short", Description: strings.Repeat("x", tools.MaxListedText), Skills: []tools.SkillInfo{{ID: "a", Description: "fits"}}}
	f.agents.agents = []tools.AgentInfo{huge, short}

	page := list(t, f, `{}`)
	h := page.Agents[0]
	if n := utf8.RuneCountInString(h.Description); n != tools.MaxListedText || !strings.HasSuffix(h.Description, "…") || !utf8.ValidString(h.Description) {
		t.Errorf("description of %d characters (valid UTF-8: %v), want %d ending with …", n, utf8.ValidString(h.Description), tools.MaxListedText)
	}
	if len(h.Skills) != tools.MaxListedSkills || h.MoreSkills != 290 || h.Skills[9].ID != "s9" {
		t.Fatalf("%d skills listed, moreSkills %d; want the first %d and 290 more", len(h.Skills), h.MoreSkills, tools.MaxListedSkills)
	}
	for _, s := range h.Skills {
		if utf8.RuneCountInString(s.Description) != tools.MaxListedText || utf8.RuneCountInString(s.Name) > 100 {
			t.Fatalf("skill %s: description of %d characters, name of %d", s.ID, utf8.RuneCountInString(s.Description), utf8.RuneCountInString(s.Name))
		}
	}
	if utf8.RuneCountInString(h.Version) > 100 {
		t.Errorf("version of %d characters", utf8.RuneCountInString(h.Version))
	}
	if s := page.Agents[1]; s.Description != short.Description || s.Skills[0].Description != "fits" || s.MoreSkills != 0 {
		t.Errorf("a card within the bounds was changed: %+v", s)
	}
	if out, _ := json.Marshal(page); len(out) > 2*(tools.MaxListedSkills+2)*(2*tools.MaxListedText+200) {
		t.Errorf("the page is %d bytes", len(out))
	}

	// Filtering on a skill past the cap lists that skill too.
	f.agents.agents = []tools.AgentInfo{huge}
	h = list(t, f, `{"skill":"s250"}`).Agents[0]
	if len(h.Skills) != tools.MaxListedSkills+1 || h.Skills[tools.MaxListedSkills].ID != "s250" || h.MoreSkills != 289 {
		t.Errorf("filtered on s250: %d skills (last %s), moreSkills %d; want the first %d, s250, and 289 more",
			len(h.Skills), h.Skills[len(h.Skills)-1].ID, h.MoreSkills, tools.MaxListedSkills)
	}
}
