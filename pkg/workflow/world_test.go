// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// stepAgent is a test agent that counts its executions per skill and keeps
// the handoff each task carried:
//   - ok: answers its text, with data {"value": input.value} when given and
//     confidence input.confidence (default HIGH);
//   - fail: fails with EXECUTION_FAILED;
//   - flaky: fails its first input.failures executions, then answers;
//   - slow: sleeps input.ms milliseconds (or until canceled), then answers.
type stepAgent struct {
	name string
	mu   sync.Mutex
	runs map[string]int
	// handoffs by the step id of their handoff.
	handoffs map[string]*workflow.Handoff
	texts    map[string]string
	started  chan string // the step ids of slow tasks, as they start
}

// startBenchAgent starts a stepAgent for benchmarks and returns its name.
func startBenchAgent(tb testing.TB, w *testworld.World) string {
	name := w.N("Bench")
	startStepAgentTB(tb, w, name)
	return name
}

func startStepAgent(t *testing.T, w *testworld.World, name string) *stepAgent {
	return startStepAgentTB(t, w, name)
}

func startStepAgentTB(t testing.TB, w *testworld.World, name string) *stepAgent {
	t.Helper()
	s := &stepAgent{name: name, runs: map[string]int{}, handoffs: map[string]*workflow.Handoff{}, texts: map[string]string{}, started: make(chan string, 16)}
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "workflow test agent", Version: "1"}, Bus: w.Connect(t), Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, skill := range []string{"ok", "fail", "flaky", "slow"} {
		if err := a.Handle(skill, s.handle); err != nil {
			t.Fatal(err)
		}
	}
	testworld.Start(t, a)
	return s
}

type stepInput struct {
	Value      any    `json:"value"`
	Confidence string `json:"confidence"`
	Failures   int    `json:"failures"`
	Code       string `json:"code"` // the fail skill's error code; EXECUTION_FAILED when empty
	MS         int    `json:"ms"`
}

func (s *stepAgent) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	h, _, err := workflow.HandoffOf(t)
	if err != nil {
		return nil, err
	}
	var in stepInput
	if len(t.Request.Input) > 0 {
		if err := json.Unmarshal(t.Request.Input, &in); err != nil {
			return nil, a2a.NewError(a2a.CodeInvalidInput, "%v", err)
		}
	}
	key := t.Request.Skill
	if h != nil {
		key = h.Step
	}
	s.mu.Lock()
	s.runs[key]++
	n := s.runs[key]
	if h != nil {
		s.handoffs[h.Step] = h
	}
	s.texts[key] = t.Text()
	s.mu.Unlock()
	switch t.Request.Skill {
	case "fail":
		code := a2a.ErrorCode(in.Code)
		if code == "" {
			code = a2a.CodeExecutionFailed
		}
		return nil, a2a.NewError(code, "asked to fail")
	case "flaky":
		if n <= in.Failures {
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "flaky failure %d", n)
		}
	case "slow":
		s.started <- key
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		}
	}
	res := agent.TextResult("done: " + t.Text())
	res.Confidence = a2a.Confidence(in.Confidence)
	if res.Confidence == "" {
		res.Confidence = a2a.ConfidenceHigh
	}
	if in.Value != nil {
		res.Artifacts = []*a2a.Artifact{{ID: "data", Parts: []*a2a.Part{a2a.NewDataPart(map[string]any{"value": in.Value})}}}
	}
	return res, nil
}

func (s *stepAgent) count(step string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[step]
}

func (s *stepAgent) handoff(step string) *workflow.Handoff {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handoffs[step]
}

func (s *stepAgent) text(step string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts[step]
}

// newEngine starts a caller named name and returns an engine on it.
func newEngine(t *testing.T, w *testworld.World, name string) *workflow.Engine {
	t.Helper()
	c := callers.Start(t, w, name)
	e, err := workflow.New(workflow.Options{Caller: c, Memory: w.Memory, LeaseTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// parse parses a workflow written with %[1]s for the test agent's name.
func parse(t testing.TB, agentName, src string) *workflow.Workflow {
	t.Helper()
	wf, err := workflow.Parse("test.yaml", []byte(fmt.Sprintf(src, agentName)))
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

func execute(t *testing.T, e *workflow.Engine, wf *workflow.Workflow, ro workflow.RunOptions) *workflow.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := e.Execute(ctx, wf, ro)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func step(t *testing.T, rep *workflow.Report, id string) workflow.StepReport {
	t.Helper()
	for _, s := range rep.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no step %s in the report:\n%s", id, rep.Text())
	return workflow.StepReport{}
}
