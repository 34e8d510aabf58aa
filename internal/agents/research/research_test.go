// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

func TestCardAgreesWithWellKnownFile(t *testing.T) {
	known, err := directory.LoadWellKnown("../../../well-known-agents.json")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(known, func(k directory.WellKnownAgent) bool { return k.AgentName == DefaultName })
	if i < 0 {
		t.Fatalf("%s is not in well-known-agents.json", DefaultName)
	}
	want, got := known[i].Card(), Card()
	if got.Name != want.Name || got.Description != want.Description || got.Version != want.Version || len(got.Skills) != 1 || len(want.Skills) != 1 {
		t.Fatalf("card %+v, want %+v", got, want)
	}
	g, w := got.Skills[0], want.Skills[0]
	if g.ID != w.ID || g.Name != w.Name || g.Description != w.Description || !slices.Equal(g.Tags, w.Tags) || !slices.Equal(g.Examples, w.Examples) {
		t.Errorf("skill %+v, want %+v", g, w)
	}
}

func TestRegisterRefusesBadArguments(t *testing.T) {
	if err := Register(nil, "docs"); !errors.Is(err, ErrNilAgent) {
		t.Errorf("nil agent: %v", err)
	}
	a, err := agent.New(agent.Options{Card: Card(), Bus: inproc.New(inproc.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(a, ""); !errors.Is(err, ErrNoDocsDir) {
		t.Errorf("no folder: %v", err)
	}
}

// researchWorld runs a ResearchAgent on dir and returns a caller for it.
// A model, when given, writes the answers.
func researchWorld(t *testing.T, dir string, model ...Model) *caller.Caller {
	t.Helper()
	return agentWorld(t, func(a *agent.Agent) error {
		if len(model) > 0 {
			return RegisterWithModel(a, dir, model[0])
		}
		return Register(a, dir)
	})
}

// agentWorld runs a ResearchAgent whose skill register adds, on an
// embedded bus and memory, and returns a caller for it.
func agentWorld(t *testing.T, register func(*agent.Agent) error) *caller.Caller {
	t.Helper()
	broker := inproc.NewBroker(inproc.Options{})
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = broker.Close(); _ = mem.Close() })
	a, err := agent.New(agent.Options{Card: Card(), Bus: broker.Connect(), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := register(a); err != nil {
		t.Fatal(err)
	}
	c, err := caller.New(caller.Options{Name: "Tester", Bus: broker.Connect(), Memory: mem, SweepInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	testworld.Start(t, c, caller.ErrClosed)
	return c
}

// research asks the question and returns the outcome and the status texts.
func research(t *testing.T, c *caller.Caller, question string) (*caller.Outcome, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var statuses []string
	out, err := c.Call(ctx, caller.Request{Target: DefaultName, Skill: SkillResearch, Text: question}, func(st *a2a.TaskStatus) {
		mu.Lock()
		defer mu.Unlock()
		statuses = append(statuses, a2a.MessageText(st.Message))
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out, statuses
}

func TestResearchSkill(t *testing.T) {
	docs := map[string]string{
		"topology.md": "# Topology\n\nOne durable topic exchange carries every message.\n\n" +
			"## Quorum queues\n\nQuorum queues replicate with Raft and have no message priority. " +
			"Classic queues support priority but are not replicated.\n\n" +
			"## Dead letters\n\nA poison message is dead-lettered after max attempts.",
		"ops/keda.txt": "KEDA starts one job per waiting task.\n\nThe job exits when its task is done.",
		"ops/logo.svg": "<svg>quorum quorum quorum</svg>",
	}
	for i := range 6 {
		docs[filepath.ToSlash(filepath.Join("more", string(rune('a'+i))+".md"))] = "# Note\n\nqueues are listed here too."
	}
	dir := writeDocs(t, docs)
	c := researchWorld(t, dir)

	out, statuses := research(t, c, "What changed between RabbitMQ classic and quorum queues?")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	text := out.Result.Text()
	if !strings.HasPrefix(text, "Found 7 passages in 7 files for 'What changed between RabbitMQ classic and quorum queues?'; best: topology.md#Quorum queues (the top 5 are attached)") {
		t.Errorf("summary %q", text)
	}
	if !strings.Contains(text, "replicate with Raft") {
		t.Errorf("summary %q does not quote the best passage", text)
	}
	arts := out.Result.Artifacts
	if len(arts) != TopPassages {
		t.Fatalf("got %d artifacts, want %d", len(arts), TopPassages)
	}
	best := arts[0]
	if best.Name != "topology.md#Quorum queues" || best.Metadata["path"] != "topology.md" || best.Metadata["heading"] != "Quorum queues" {
		t.Errorf("best artifact %q %v", best.Name, best.Metadata)
	}
	if len(best.Parts) != 1 || !strings.Contains(best.Parts[0].Text(), "Classic queues support priority") {
		t.Errorf("best artifact parts %+v", best.Parts)
	}
	prev := best.Metadata["score"].(float64)
	for _, a := range arts[1:] {
		s := a.Metadata["score"].(float64)
		if s > prev || s <= 0 {
			t.Errorf("scores not descending and positive: %v after %v", s, prev)
		}
		prev = s
	}
	for _, want := range []string{"reading 8 files", "ranking 11 passages"} {
		if !slices.Contains(statuses, want) {
			t.Errorf("statuses %q lack %q", statuses, want)
		}
	}

	out, _ = research(t, c, "kubernetes helm chart")
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	if got := out.Result.Text(); got != "Nothing in the 8 files searched matched 'kubernetes helm chart'." || len(out.Result.Artifacts) != 0 {
		t.Errorf("no match: %q with %d artifacts", got, len(out.Result.Artifacts))
	}

	out, _ = research(t, c, "   ")
	wantCode(t, out, a2a.CodeInvalidInput, "empty")
	out, _ = research(t, c, "what is the")
	wantCode(t, out, a2a.CodeInvalidInput, "no searchable words")
}

func TestResearchMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	c := researchWorld(t, dir)
	out, _ := research(t, c, "anything at all")
	wantCode(t, out, a2a.CodeExecutionFailed, dir, "does not exist")

	empty := t.TempDir()
	c = researchWorld(t, empty)
	out, _ = research(t, c, "anything at all")
	wantCode(t, out, a2a.CodeExecutionFailed, "no .md or .txt files")
}

func wantCode(t *testing.T, out *caller.Outcome, code a2a.ErrorCode, parts ...string) {
	t.Helper()
	var e *a2a.Error
	if err := out.Err(); !errors.As(err, &e) || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not contain %q", e.Message, p)
		}
	}
}
