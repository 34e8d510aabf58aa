// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

func TestParseKind(t *testing.T) {
	for in, want := range map[string]string{"sampleagent": KindSample, "SampleAgent": KindSample, "RESEARCHAGENT": KindResearch} {
		if got, err := ParseKind(in); err != nil || got != want {
			t.Errorf("ParseKind(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseKind("EchoAgent")
	if !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), `"EchoAgent"`) ||
		!strings.Contains(err.Error(), KindSample) || !strings.Contains(err.Error(), KindResearch) {
		t.Fatalf("ParseKind(EchoAgent) = %v; want ErrUnknownKind naming it and both kinds", err)
	}
}

func TestServeRefusesBadArguments(t *testing.T) {
	ctx := testCtx(t)
	if err := Serve(ctx, config.Default(), "Nope", "", nil); !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), "SampleAgent or ResearchAgent") {
		t.Errorf("unknown kind: %v", err)
	}
	if err := Serve(ctx, nil, KindSample, "", nil); !errors.Is(err, ErrNoConfig) {
		t.Errorf("nil config: %v", err)
	}
	if err := Serve(ctx, config.Default(), KindSample, "has.dot", nil); !errors.Is(err, a2a.ErrInvalidName) {
		t.Errorf("bad name: %v", err)
	}
	bad := config.Default()
	bad.Agent.MaxTasks = 0
	if err := Serve(ctx, bad, KindSample, "", nil); !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "agent.max_tasks") {
		t.Errorf("invalid config: %v", err)
	}
}

func TestServeEphemeralExitsWhenIdle(t *testing.T) {
	cfg := testConfig(t)
	cfg.Agent.Ephemeral = true
	cfg.Agent.IdleTimeout = 100 * time.Millisecond
	// The embedded bus: nobody else can send it a task, so it idles out.
	if err := Serve(testCtx(t), cfg, "researchagent", "", nil); err != nil {
		t.Fatalf("Serve = %v, want a clean stop", err)
	}
}

func TestServeAlwaysOnStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, testConfig(t), KindSample, "Stopper", nil) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v, want a clean stop", err)
	}
}

func TestServeEphemeralResearchRunsOneTask(t *testing.T) {
	w := newWorld(t)
	tester := w.caller("Tester")
	cfg := testConfig(t)
	cfg.Agent.Ephemeral = true
	cfg.Agent.IdleTimeout = time.Minute // only the task budget can end it quickly

	ctx := testCtx(t)
	var invs []caller.Invocation
	for _, q := range []string{"durable queues", "dead letters"} {
		inv, err := tester.Invoke(ctx, caller.Request{Target: KindResearch, Skill: "research", Text: q, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, inv)
	}
	// Each job runs one task and exits; the other task waits for the next job.
	for job := 1; job <= 2; job++ {
		if err := serveOn(ctx, cfg, KindResearch, KindResearch, w.Connect(w.t), nil); err != nil {
			t.Fatalf("job %d: serve = %v, want a clean stop", job, err)
		}
		testenv.Eventually(t, fmt.Sprintf("the result of job %d stored", job), func() bool { return w.results(ctx, invs) >= job })
		if got := w.results(ctx, invs); got != job {
			t.Fatalf("after job %d, %d results are stored, want %d", job, got, job)
		}
	}
	for _, inv := range invs {
		out, err := tester.Wait(ctx, inv.TaskID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Err(); err != nil || !strings.HasPrefix(out.Result.Text(), "Found ") {
			t.Errorf("task %s: %v %q", inv.TaskID, err, out.Result.Text())
		}
	}
}

func TestServeSampleDelegatesThroughItsCaller(t *testing.T) {
	w := newWorld(t)
	tester := w.caller("Tester")
	cfg := testConfig(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 2)
	for _, name := range []string{"Main", "Helper"} {
		go func() { done <- serveOn(ctx, cfg, KindSample, name, w.Connect(w.t), keepOpen{w.Memory}) }()
	}
	input, _ := json.Marshal(map[string]any{"agent": "Helper", "skill": "echo", "text": "relayed"})
	out, err := tester.Call(ctx, caller.Request{Target: "Main", Skill: "delegate", Input: input, Timeout: 10 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil || out.Result.Text() != "relayed" {
		t.Fatalf("delegate: %v %q", err, out.Result.Text())
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("serve = %v, want a clean stop", err)
		}
	}
}

// world is an embedded broker and memory shared by the agents Serve runs
// and the test's callers.
type world struct {
	*testworld.World
	t *testing.T
}

func newWorld(t *testing.T) *world { return &world{World: testworld.Embedded(t), t: t} }

// caller returns a running caller named name.
func (w *world) caller(name string) *caller.Caller { return callers.Start(w.t, w.World, name) }

// results counts the invocations whose result is in working memory.
func (w *world) results(ctx context.Context, invs []caller.Invocation) int {
	n := 0
	for _, inv := range invs {
		if _, err := w.Memory.Get(ctx, inv.MemoryKey); err == nil {
			n++
		}
	}
	return n
}

// serveOn is serve assembled on a bus and memory of the test's world.
func serveOn(ctx context.Context, cfg *config.Config, kind, name string, b bus.Bus, m memory.Memory) error {
	n, err := node.With(cfg, b, m, nil)
	if err != nil {
		return err
	}
	return node.ServeOn(ctx, n, reference(kind, name))
}

// keepOpen shares one memory between several serve calls: Close is a no-op.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

// allowAll lets every caller call every agent: the configuration of the
// tests that are not about the policy (policy.default stays deny).
func allowAll(cfg *config.Config) *config.Config {
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}}
	return cfg
}

// testConfig is the default configuration with a docs folder and fast
// timers, every call allowed (allowAll).
func testConfig(t *testing.T) *config.Config {
	dir := t.TempDir()
	doc := "# Topology\n\nTask queues are durable queues.\n\n# Failures\n\nPoison tasks go to dead letters."
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Research.DocsDir = dir
	cfg.Agent.StopTimeout = time.Second
	cfg.Caller.SweepInterval = 50 * time.Millisecond
	return allowAll(cfg)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestServeResearchWebNotLinked: research.search_url in a program that did
// not register the web backend is refused at start, naming what to do,
// rather than searching the docs folder instead.
func TestServeResearchWebNotLinked(t *testing.T) {
	cfg := testConfig(t)
	cfg.Agent.Ephemeral = true
	cfg.Agent.IdleTimeout = 100 * time.Millisecond
	cfg.Research.SearchURL = "http://127.0.0.1:1"
	err := Serve(testCtx(t), cfg, KindResearch, "", nil)
	if !errors.Is(err, research.ErrWebNotLinked) || !strings.Contains(err.Error(), "unset research.search_url") {
		t.Fatalf("Serve = %v, want ErrWebNotLinked naming what to do", err)
	}
}

// TestServeResearchReadsItsDocsBeforeItConnects: a served ResearchAgent
// starts reading its docs folder before the node opens (the reading is
// waited for before Serve returns), and one searching the web does not.
func TestServeResearchReadsItsDocsBeforeItConnects(t *testing.T) {
	var preloaded []string
	waited := 0
	defer func(f func(context.Context, research.Docs) func()) { preloadDocs = f }(preloadDocs)
	preloadDocs = func(ctx context.Context, docs research.Docs) func() {
		preloaded = append(preloaded, docs.String())
		wait := docs.Preload(ctx)
		return func() { wait(); waited++ }
	}
	cfg := testConfig(t)
	cfg.Bus.URL = "amqp://guest:guest@127.0.0.1:1/" // refused: Serve returns before any agent is built
	if err := Serve(testCtx(t), cfg, KindResearch, "", nil); err == nil {
		t.Fatal("Serve on a closed port succeeded")
	}
	if want := fmt.Sprintf("docs folder %q", cfg.Research.DocsDir); len(preloaded) != 1 || preloaded[0] != want || waited != 1 {
		t.Fatalf("preloaded %q (waited %d), want %q once", preloaded, waited, want)
	}

	cfg = testConfig(t)
	cfg.Agent.Ephemeral = true
	cfg.Agent.IdleTimeout = 100 * time.Millisecond
	cfg.Research.SearchURL = "http://127.0.0.1:1"
	_ = Serve(testCtx(t), cfg, KindResearch, "", nil)
	if len(preloaded) != 1 {
		t.Fatalf("a web search preloaded %q", preloaded[1:])
	}
}
