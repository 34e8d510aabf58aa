// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/workflow"
	"github.com/a2abus/a2abus/workflows"
)

// KindOrchestrator is the Orchestrator agent: it exposes each workflow of a
// folder as a skill and runs it (pkg/workflow) through a caller of its own
// name, and routes requests in plain words to the agent that fits (its
// skill route, pkg/intent).
const KindOrchestrator = "Orchestrator"

// SkillRoute is the Orchestrator's routing skill; no workflow may take its name.
const SkillRoute = intent.DefaultSkill

// routeSkill is the route skill on the Orchestrator's card.
var routeSkill = a2a.AgentSkill{
	ID: SkillRoute, Name: "Route",
	Description: "Routes a request in plain words to the agent and skill that fit it: classifies its intents against the known agents' cards " +
		"(with the model when llm is configured, else by keywords and skill tags), routes it when confident, asks a clarifying question or offers " +
		"the options when unsure, and says so plainly when no agent fits. The result carries the classification (artifact intent-classification).",
	Tags:     []string{"routing", "intent", "orchestration"},
	Examples: []string{"Compute the net present value of these cash flows: -1000, 300, 400, 500 at 8%"},
}

// LoadWorkflows loads the workflows of dir (every .yaml file), or the
// shipped ones (package workflows) when dir is "", refusing one of more
// than maxSteps steps (workflow.max_steps; 0: workflow.DefaultMaxSteps).
func LoadWorkflows(dir string, maxSteps int) ([]*workflow.Workflow, error) {
	if dir == "" {
		return workflows.Load()
	}
	return workflow.Loader{MaxSteps: maxSteps}.LoadDir(dir)
}

// OrchestratorCard is the card of an Orchestrator named name: one skill per
// workflow, and route.
func OrchestratorCard(name string, wfs []*workflow.Workflow) a2a.AgentCard {
	card := a2a.AgentCard{
		Name:               name,
		Description:        "Runs multi-agent workflows: each skill but route is a workflow whose steps call other agents in sequence and in parallel; the result is the aggregated report (SUCCESS, PARTIAL or ERROR). Its skill route sends a request in plain words to the agent that fits it.",
		Version:            "1.0",
		DefaultInputModes:  []string{"application/json", "text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
	}
	for _, w := range wfs {
		desc := w.Description
		if desc == "" {
			desc = fmt.Sprintf("Runs the workflow %s (%d steps).", w.Name, len(w.StepList()))
		}
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: w.Name, Name: w.Name, Description: desc, Tags: []string{"workflow", "orchestration"}})
	}
	card.Skills = append(card.Skills, routeSkill)
	return card
}

// Orchestrator is an Orchestrator agent assembled on a host: the agent, the
// caller its workflows' steps and its routed requests go through (named as
// the agent), the engine, and the route skill's router.
type Orchestrator struct {
	Agent  *agent.Agent
	Caller *caller.Caller
	Engine *workflow.Engine
	Router *intent.Router
}

// NewOrchestrator assembles the Orchestrator called name on h for wfs: its
// agent and its caller are parts of h, and every step's target is vetted
// through h's directory. Its route skill lists the candidates from h's
// directory (a Lister, unless h has one already), classifies with the
// model when llm.base_url is set (else with the keyword matcher), and
// decides by orchestrator.*; it may route to the workflows too.
func NewOrchestrator(h *node.Host, name string, wfs []*workflow.Workflow) (*Orchestrator, error) {
	if len(wfs) == 0 {
		return nil, fmt.Errorf("agents: orchestrator %q: %w", name, workflow.ErrNoWorkflows)
	}
	for _, w := range wfs {
		if w.Name == SkillRoute {
			return nil, fmt.Errorf("agents: orchestrator %q: a workflow may not be named %q, the name of the Orchestrator's routing skill", name, SkillRoute)
		}
	}
	d, err := h.Directory(node.Lister) // the route skill lists every agent
	if err != nil {
		return nil, err
	}
	c, err := h.Caller(name)
	if err != nil {
		return nil, err
	}
	wcfg := h.Node.Config.Workflow
	e, err := workflow.New(workflow.Options{Caller: c, Memory: h.Node.Memory, MaxRenderBytes: wcfg.MaxRenderBytes, MaxSteps: wcfg.MaxSteps,
		MemoryRetryBound: h.Node.Config.Memory.RetryBound, Logger: h.Node.Log})
	if err != nil {
		return nil, err
	}
	card := OrchestratorCard(name, wfs)
	local := make([]intent.LocalSkill, len(wfs))
	for i, w := range wfs {
		local[i] = intent.LocalSkill{Skill: card.Skills[i], Handler: runWorkflow(e, w)}
	}
	r, err := newRouter(h, name, d, c, local)
	if err != nil {
		return nil, fmt.Errorf("agents: orchestrator %q: %w", name, err)
	}
	a, err := h.Agent(card, func(a *agent.Agent) error {
		for _, l := range local {
			if err := a.Handle(l.Skill.ID, l.Handler); err != nil {
				return fmt.Errorf("workflow %s: %w", l.Skill.ID, err)
			}
		}
		return a.Handle(SkillRoute, r.Handle)
	})
	if err != nil {
		return nil, fmt.Errorf("agents: orchestrator %q: %w", name, err)
	}
	return &Orchestrator{Agent: a, Caller: c, Engine: e, Router: r}, nil
}

// newRouter builds the route skill's router for the Orchestrator name:
// the model's classifier when llm.base_url is set, else the matcher, and
// the bounds of orchestrator.*.
func newRouter(h *node.Host, name string, d *directory.Directory, c *caller.Caller, local []intent.LocalSkill) (*intent.Router, error) {
	cfg := h.Node.Config
	var cl intent.Classifier = intent.Matcher{}
	if cfg.LLM.BaseURL != "" {
		model, err := h.Node.Model()
		if err != nil {
			return nil, err
		}
		cl = &intent.LLMClassifier{Model: model}
	}
	oc := cfg.Orchestrator
	return intent.NewRouter(intent.Options{
		Self: name, Directory: d, Local: local, Classifier: cl, Caller: c, Logger: h.Node.Log,
		Bounds:       &intent.Bounds{Threshold: oc.RouteThreshold, Margin: oc.RouteMargin, Floor: oc.RouteFloor},
		MaxQuestions: oc.RouteMaxQuestions,
	})
}

// ServeOrchestrator runs the Orchestrator called name (default
// "Orchestrator") for the workflows of dir ("" the shipped ones) on the
// configured bus until ctx is done; see Serve.
func ServeOrchestrator(ctx context.Context, cfg *config.Config, name, dir string, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return ErrNoConfig
	}
	if name == "" {
		name = KindOrchestrator
	}
	if err := a2a.ValidateAgentName(name); err != nil {
		return fmt.Errorf("agents: serve %s: %w", KindOrchestrator, err)
	}
	wfs, err := LoadWorkflows(dir, cfg.Workflow.MaxSteps)
	if err != nil {
		return err
	}
	names := make([]string, len(wfs))
	for i, w := range wfs {
		names[i] = w.Name
	}
	return node.Serve(ctx, cfg, name, log, func(_ context.Context, h *node.Host) error {
		log.Info("serving agent", zap.String("kind", KindOrchestrator), zap.String("agent", name), zap.Strings("workflows", names))
		_, err := NewOrchestrator(h, name, wfs)
		return err
	})
}

// runWorkflow is the handler of workflow w's skill. The run id is the
// task id, so a task redelivered after the Orchestrator was killed resumes
// its run instead of starting another. A SUCCESS or PARTIAL run is the
// task's result, the report attached; an ERROR run fails the task with the
// failed step's error code and a message naming the step and why
// (Report.Err), its report kept in working memory. The input is the task's structured
// input (or a text that is a JSON object); any other text is the original
// request. The task's handoff passes on its sessionId, userId,
// originalRequest and constraints.
func runWorkflow(e *workflow.Engine, w *workflow.Workflow) agent.Handler {
	return func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		ro := workflow.RunOptions{RunID: t.Request.TaskID, SessionID: t.Request.SessionID}
		text := strings.TrimSpace(t.Text())
		switch {
		case len(t.Request.Input) > 0:
			ro.Input = t.Request.Input
			if text != strings.TrimSpace(string(t.Request.Input)) {
				ro.Request = text
			}
		case strings.HasPrefix(text, "{") && json.Valid([]byte(text)):
			ro.Input = json.RawMessage(text)
		default:
			ro.Request = text
		}
		if err := inheritHandoff(t.Request.Handoff, &ro); err != nil {
			return nil, err
		}
		ro.OnEvent = func(ev workflow.Event) {
			if ev.Phase.Final() {
				_ = t.Progress(ctx, fmt.Sprintf("step %d of %d (%s): %s", ev.Index, ev.Count, ev.Step.Name(), ev.Phase), float64(ev.Index)/float64(ev.Count))
			}
		}
		rep, err := e.Execute(ctx, w, ro)
		switch {
		case errors.Is(err, workflow.ErrInvalidInput):
			return nil, a2a.NewError(a2a.CodeInvalidInput, "%v", err)
		case err != nil:
			return nil, fmt.Errorf("workflow %s run %s: %w", w.Name, ro.RunID, err)
		case rep.Status == workflow.StatusError:
			// The step that failed, its code and message reach the caller;
			// the report stays in working memory (workflow.Show, run id = task id).
			return nil, rep.Err()
		}
		art, err := workflow.ReportArtifact(rep)
		if err != nil {
			return nil, err
		}
		return &agent.Result{
			Message:    a2a.NewTextMessage(a2a.MessageRoleAgent, rep.Text()),
			Artifacts:  []*a2a.Artifact{art},
			Status:     rep.Status.ResultStatus(),
			Confidence: rep.Confidence,
			Warnings:   rep.Warnings,
			Extra:      map[string]any{"runId": rep.RunID, "workflow": rep.Workflow},
		}, nil
	}
}

// inheritHandoff copies the user context of the task's handoff into ro:
// its sessionId, userId, originalRequest and constraints, the fields of a
// workflow.Handoff (a request queued before camelCase may spell them
// session_id, user_id, original_request).
func inheritHandoff(raw json.RawMessage, ro *workflow.RunOptions) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var h workflow.Handoff
	if err := json.Unmarshal(raw, &h); err != nil {
		return a2a.NewError(a2a.CodeInvalidInput, "the task's handoff must be a JSON object with sessionId, userId, originalRequest, constraints: %v", err)
	}
	if h.SessionID != "" {
		ro.SessionID = h.SessionID
	}
	ro.UserID = h.UserID
	if ro.Request == "" {
		ro.Request = h.OriginalRequest
	}
	ro.Constraints = h.Constraints
	return nil
}
