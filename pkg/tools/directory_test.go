// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

type fakeDirectory struct {
	got     directory.Filter
	entries []directory.Entry
}

func (f *fakeDirectory) List(filter directory.Filter) []directory.Entry {
	f.got = filter
	return f.entries
}

func TestDirectoryLister(t *testing.T) {
	seen := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	d := &fakeDirectory{entries: []directory.Entry{
		{Name: "ResearchAgent", Status: directory.StatusWellKnown, WellKnown: true,
			Card: a2a.AgentCard{Name: "ResearchAgent", Description: "research", Version: "1.0", Skills: []a2a.AgentSkill{{ID: "research", Name: "Research", Description: "d"}}}},
		{Name: "SampleAgent", Status: directory.StatusOnline, LastSeen: seen, Instances: []directory.Instance{{ID: "a"}, {ID: "b"}},
			Card: a2a.AgentCard{Name: "SampleAgent", Version: "2"}},
	}}
	got := DirectoryLister{Directory: d}.ListAgents("research", "find")
	if d.got != (directory.Filter{Skill: "research", Query: "find"}) {
		t.Fatalf("filter passed = %+v", d.got)
	}
	if len(got) != 2 || got[0].LastSeen != directory.NotSeenText || got[0].Status != StatusWellKnown ||
		len(got[0].Skills) != 1 || got[0].Skills[0].ID != "research" {
		t.Fatalf("first = %+v", got[0])
	}
	if got[1].Instances != 2 || got[1].Status != StatusOnline || got[1].LastSeen != "2026-11-22T10:00:00Z" || got[1].Skills == nil {
		t.Fatalf("second = %+v", got[1])
	}
}
