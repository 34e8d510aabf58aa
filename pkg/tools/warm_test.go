// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/tools"
)

// warmingLister is a Lister that fills in after start: fill adds its agent
// and closes Warm, as a directory's first discovery round does.
type warmingLister struct {
	fakeLister
	warm chan struct{}
}

func (w *warmingLister) Warm() <-chan struct{} { return w.warm }

func (w *warmingLister) fill() {
	w.mu.Lock()
	w.agents = []tools.AgentInfo{{Name: "Worker", Status: tools.StatusOnline, Instances: 1}}
	w.mu.Unlock()
	close(w.warm)
}

func warmingSet(t *testing.T, w *warmingLister, wait time.Duration) *tools.Set {
	t.Helper()
	set, err := tools.New(tools.Deps{Agents: w, SessionID: session, Only: []string{"list_known_agents"}, WarmWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func listOf(t *testing.T, set *tools.Set) tools.AgentList {
	t.Helper()
	out, err := set.Dispatch(context.Background(), "list_known_agents", nil)
	if err != nil {
		t.Fatal(err)
	}
	var page tools.AgentList
	if err := json.Unmarshal(out, &page); err != nil {
		t.Fatalf("list_known_agents = %s: %v", out, err)
	}
	return page
}

// The first list_known_agents of a process that just started waits for the
// listing to be warm (the directory's first discovery round) and answers
// with what the running agents said, not with an empty or stale listing.
func TestListKnownAgentsWaitsForTheFirstDiscoveryRound(t *testing.T) {
	w := &warmingLister{warm: make(chan struct{})}
	set := warmingSet(t, w, time.Minute) // a bound the test never reaches
	listed := make(chan tools.AgentList, 1)
	go func() { listed <- listOf(t, set) }()
	select {
	case page := <-listed:
		t.Fatalf("list_known_agents answered %+v before the listing was warm", page)
	case <-time.After(50 * time.Millisecond):
	}
	w.fill()
	page := <-listed
	if page.Total != 1 || page.Agents[0].Name != "Worker" || page.Warming || page.Note != "" {
		t.Fatalf("list_known_agents after the round = %+v, want Worker and no warming", page)
	}
}

// When the listing is not warm within Deps.WarmWait, list_known_agents
// answers with what it has and says it is warming up; later calls do not
// wait again, and say it as long as it lasts.
func TestListKnownAgentsSaysItIsWarmingUp(t *testing.T) {
	w := &warmingLister{warm: make(chan struct{})}
	set := warmingSet(t, w, 20*time.Millisecond)
	for i := range 2 {
		page := listOf(t, set)
		if !page.Warming || page.Note != tools.WarmingNote || page.Total != 0 {
			t.Fatalf("call %d while cold = %+v, want warming with the note", i+1, page)
		}
	}
	w.fill()
	if page := listOf(t, set); page.Warming || page.Total != 1 {
		t.Fatalf("list_known_agents once warm = %+v, want Worker, not warming", page)
	}
}
