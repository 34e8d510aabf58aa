// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llmagent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// ServeFile runs the LLM-backed agents declared at path — one agent file,
// or a folder of them (agents.d) — on the configured bus until ctx is done
// or, when cfg.Agent.Ephemeral, their task budget or idle time runs out.
// Each agent is built through the node (n.Agent: its card announced like
// any other) with a caller of its own name for its sub-agent calls, and
// the model configured in the llm section. A configuration whose model time
// could outlast agent.max_task_duration is refused before anything starts.
func ServeFile(ctx context.Context, cfg *config.Config, path string, log *zap.Logger) error {
	return ServeModel(ctx, cfg, path, nil, log)
}

// ServeModel is ServeFile with model answering the tasks; nil builds the
// client the llm section configures.
func ServeModel(ctx context.Context, cfg *config.Config, path string, model llm.Client, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return ErrNoConfig
	}
	specs, err := loadSpecs(path)
	if err != nil {
		return err
	}
	for _, s := range specs { // work that could outlast the broker's consumer_timeout is refused before anything connects
		for i := range s.Skills {
			if err := llmagent.CheckDeadline(s, &s.Skills[i], cfg.LLM.Timeout, cfg.Agent.MaxTaskDuration); err != nil {
				return err
			}
		}
	}
	if model == nil {
		if model, err = node.NewModel(cfg.LLM, log); err != nil {
			return err
		}
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	build := llmAgents(specs, model)
	return node.Serve(ctx, cfg, specs[0].Name, log, func(ctx context.Context, h *node.Host) error {
		log.Info("serving LLM agents", zap.Strings("agents", names), zap.String("file", path),
			zap.String("llm", redact.URL(cfg.LLM.BaseURL)), zap.String("model", cfg.LLM.Model), zap.Bool("ephemeral", cfg.Agent.Ephemeral))
		return build(ctx, h)
	})
}

// loadSpecs loads the agent file at path, or every agent file of the folder.
func loadSpecs(path string) ([]*llmagent.Spec, error) {
	if path == "" {
		return nil, fmt.Errorf("agents: --agent-file names no file")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agents: agent file: %w", err)
	}
	if st.IsDir() {
		return llmagent.LoadDir(path)
	}
	s, err := llmagent.Load(path)
	if err != nil {
		return nil, err
	}
	return []*llmagent.Spec{s}, nil
}

// llmAgents builds the agents of specs on the host, each with a caller of
// its name when a skill may call other agents; all of them vet their
// targets through the host's one directory: a Lister (the shared listing
// restored, a discovery query at start) when a skill offers
// list_known_agents, else a Vetter. One that stops stops them all.
func llmAgents(specs []*llmagent.Spec, model llm.Client) node.Build {
	return func(ctx context.Context, h *node.Host) error {
		if slices.ContainsFunc(specs, listsAgents) {
			if _, err := h.Directory(node.Lister); err != nil {
				return err
			}
		}
		for _, s := range specs {
			if err := buildLLMAgent(h, s, model); err != nil {
				return err
			}
		}
		return nil
	}
}

// buildLLMAgent builds the agent of s with a caller of its name for its
// sub-agent calls (only when a skill allows tools).
func buildLLMAgent(h *node.Host, s *llmagent.Spec, model llm.Client) error {
	n := h.Node
	cfg := n.Config
	opts := llmagent.Options{
		Spec: s, Model: model, Endpoint: redact.URL(cfg.LLM.BaseURL), Conversations: n.Memory,
		LLMTimeout: cfg.LLM.Timeout, MaxTaskDuration: cfg.Agent.MaxTaskDuration, MaxDepth: cfg.Caller.MaxDepth,
		MaxToolArgumentBytes: cfg.LLM.MaxToolArgumentBytes, Logger: n.Log,
	}
	if needsTools(s) {
		d, err := h.Directory(node.Vetter)
		if err != nil {
			return err
		}
		c, err := h.Caller(s.Name)
		if err != nil {
			return err
		}
		opts.Tools = toolboxFactory(c, d, n)
	}
	la, err := llmagent.New(opts)
	if err != nil {
		return err
	}
	_, err = h.Agent(s.Card(), la.Register)
	return err
}

// listsAgents reports whether a skill of s offers list_known_agents.
func listsAgents(s *llmagent.Spec) bool {
	for _, sk := range s.Skills {
		if slices.Contains(sk.AllowedTools, llmagent.ToolListKnownAgents) {
			return true
		}
	}
	return false
}

func needsTools(s *llmagent.Spec) bool {
	for _, sk := range s.Skills {
		if len(sk.AllowedTools) > 0 {
			return true
		}
	}
	return false
}

// toolboxFactory binds pkg/tools to each task's session: the skill's
// allowed_tools (tools.Deps.Only) and allowed_agents (Deps.AllowedAgents,
// which list_known_agents honours too).
func toolboxFactory(c *caller.Caller, d *directory.Directory, n *node.Node) llmagent.ToolboxFactory {
	return func(ctx context.Context, t *agent.Task, sk *llmagent.Skill) (llmagent.Toolbox, error) {
		allowed := sk.AllowedAgents
		if slices.Contains(allowed, llmagent.AnyAgent) {
			allowed = nil // every agent
		}
		set, err := tools.New(tools.Deps{Caller: c, Agents: tools.DirectoryLister{Directory: d}, Memory: n.Memory,
			SessionID: t.Request.SessionID, Logger: n.Log, Only: sk.AllowedTools, AllowedAgents: allowed})
		if err != nil {
			return nil, fmt.Errorf("skill %q: tools: %w", sk.ID, err)
		}
		return waitingToolbox{set}, nil
	}
}

// waitingToolbox is a task's tool set whose invoke_agent always waits for
// the sub-task's outcome: a task answers within itself, so the model gets
// the sub-agent's answer as the call's result.
type waitingToolbox struct{ *tools.Set }

// Run runs call, with wait: true forced on invoke_agent.
func (b waitingToolbox) Run(ctx context.Context, call llm.ToolCall) (string, bool) {
	if call.Name == llmagent.ToolInvokeAgent {
		var args map[string]any
		if json.Unmarshal([]byte(call.Arguments), &args) == nil && args != nil {
			args["wait"] = true
			if raw, err := json.Marshal(args); err == nil {
				call.Arguments = string(raw)
			}
		}
	}
	return b.Set.Run(ctx, call)
}
