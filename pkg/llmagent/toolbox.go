// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// Toolbox is the bus tools one task's model may call: their definitions,
// and the dispatcher that runs a call and returns the text fed back to the
// model (isError marks a failed call the model can act on).
type Toolbox interface {
	// LLMTools are the tools offered to the model.
	LLMTools() []llm.Tool
	// Run runs one call; a failure is a result the model reads, never a panic.
	Run(ctx context.Context, call llm.ToolCall) (result string, isError bool)
}

// ToolboxFactory builds the toolbox of one task of skill: tools bound to
// the task's session, offering at most the skill's allowed_tools, with
// invoke_agent waiting for the sub-task's outcome. Called only for skills
// that allow tools.
type ToolboxFactory func(ctx context.Context, t *agent.Task, skill *Skill) (Toolbox, error)

// gate decides which tools a task's model is offered and refuses the calls
// the skill does not allow, whatever the toolbox offers: tools outside
// allowed_tools or outside the task's caller's allowedTools (a caller
// narrows, never widens), invoke_agent when the task may make no sub-agent
// call (refused says why), and targets outside allowed_agents.
type gate struct {
	skill   *Skill
	task    *agent.Task
	box     Toolbox
	offered []llm.Tool
	refused string // why this task may make no sub-agent call; "" when it may
}

// newGate filters box's tools for skill and task.
func newGate(box Toolbox, skill *Skill, t *agent.Task, self string, maxDepth int) *gate {
	g := &gate{skill: skill, task: t, box: box, refused: subAgentRefusal(skill, t, self, maxDepth)}
	for _, tool := range box.LLMTools() {
		if !skill.Allows(tool.Name) || !t.AllowsTool(tool.Name) || (tool.Name == ToolInvokeAgent && g.refused != "") {
			continue
		}
		g.offered = append(g.offered, tool)
	}
	return g
}

// subAgentRefusal says why a task of skill may not call other agents: the
// skill does not allow it, the task's caller forbade nested calls, or the
// call chain is already as long as max_sub_agent_depth (or the caller's
// caller.max_depth) allows. "" when it may.
func subAgentRefusal(skill *Skill, t *agent.Task, self string, maxDepth int) string {
	if !skill.AllowSubAgentCalls {
		return fmt.Sprintf("skill %q does not allow sub-agent calls (allow_sub_agent_calls is false)", skill.ID)
	}
	req := t.Request
	if req.AllowNestedCalls != nil && !*req.AllowNestedCalls {
		return fmt.Sprintf("task %s does not allow nested calls: its caller %s set allowNestedCalls to false", req.TaskID, req.Caller)
	}
	depth := skill.MaxSubAgentDepth
	if maxDepth > 0 && maxDepth < depth {
		depth = maxDepth
	}
	if chain := append(slices.Clone(req.CallChain), self); len(chain) >= depth {
		return fmt.Sprintf("the call chain %s already has %d agents, the limit is %d (max_sub_agent_depth %d, caller.max_depth %d)",
			strings.Join(chain, " -> "), len(chain), depth, skill.MaxSubAgentDepth, maxDepth)
	}
	return ""
}

// dispatch runs call through the toolbox once the skill allows it.
func (g *gate) dispatch(ctx context.Context, call llm.ToolCall) (string, bool) {
	if !slices.ContainsFunc(g.offered, func(t llm.Tool) bool { return t.Name == call.Name }) {
		why := fmt.Sprintf("tool %q is not available to skill %q; its tools are: %s", call.Name, g.skill.ID, g.names())
		switch {
		case call.Name == ToolInvokeAgent && g.refused != "":
			why = "sub-agent call refused: " + g.refused
		case g.skill.Allows(call.Name) && !g.task.AllowsTool(call.Name):
			why = fmt.Sprintf("tool %q is not available for task %s: its caller %s narrowed the tools to: %s; the tools offered are: %s",
				call.Name, g.task.Request.TaskID, g.task.Request.Caller, listOrNone(g.task.Request.AllowedTools), g.names())
		}
		return refusal(a2a.CodeForbidden, why), true
	}
	if call.Name == ToolInvokeAgent {
		var args struct {
			AgentName string `json:"agent_name"`
		}
		if json.Unmarshal([]byte(call.Arguments), &args) == nil && args.AgentName != "" && !g.skill.MayCall(args.AgentName) {
			return refusal(a2a.CodeForbidden, fmt.Sprintf("skill %q may not call agent %q; allowed_agents: %s",
				g.skill.ID, args.AgentName, strings.Join(g.skill.AllowedAgents, ", "))), true
		}
	}
	return g.box.Run(ctx, call)
}

// names lists the offered tools, "none" when there are none.
func (g *gate) names() string {
	names := make([]string, len(g.offered))
	for i, t := range g.offered {
		names[i] = t.Name
	}
	return listOrNone(names)
}

// listOrNone joins names with commas, "none" when there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// refusal is a tool result refusing a call, in tools.ErrorResult's shape.
func refusal(code a2a.ErrorCode, message string) string {
	return string(tools.ErrorResult(&a2a.Error{Code: code, Message: message}))
}
