package tools

import (
	"context"
	"encoding/json"
	"slices"
)

// Statuses of an AgentInfo.
const (
	// StatusOnline: the agent has announced itself recently.
	StatusOnline = "online"
	// StatusOffline: the agent announced itself once but has been silent since.
	StatusOffline = "offline"
	// StatusWellKnown: the agent is listed statically and started on demand; it can always be invoked.
	StatusWellKnown = "well-known"
)

// maxQueryLen bounds list_known_agents' query.
const maxQueryLen = 200

// AgentInfo is one agent as list_known_agents shows it.
type AgentInfo struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	Skills      []SkillInfo `json:"skills"`
	// Status is StatusOnline, StatusOffline or StatusWellKnown.
	Status string `json:"status"`
	// Instances is how many instances are running now.
	Instances int `json:"instances"`
	// LastSeen says when the agent last announced itself, as text.
	LastSeen string `json:"lastSeen"`
}

// SkillInfo is one skill of an AgentInfo; ID is what invoke_agent's skill takes.
type SkillInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

var listKnownAgentsDef = definition{
	name: "list_known_agents",
	description: "List the agents you can invoke with invoke_agent: name, description, version, skills (pass a " +
		"skill's id to invoke_agent), status (online; offline: not seen lately; well-known: started on demand, " +
		"always invocable), running instances and when each was last seen.",
	params: []param{
		{name: "skill", hint: skillIDHint, schema: map[string]any{
			"type": "string", "pattern": skillIDPattern,
			"description": "Only agents offering the skill with this id.",
		}},
		{name: "query", schema: map[string]any{
			"type": "string", "maxLength": maxQueryLen,
			"description": "Only agents whose name or description contains this text (case-insensitive).",
		}},
	},
}

// listArgs are list_known_agents' arguments.
type listArgs struct {
	Skill string `json:"skill"`
	Query string `json:"query"`
}

// listKnownAgents returns the matching agents as a JSON array (never null).
func (s *Set) listKnownAgents(_ context.Context, raw json.RawMessage) (any, error) {
	var args listArgs
	if err := decodeArgs("list_known_agents", raw, &args); err != nil {
		return nil, err
	}
	agents := slices.Clone(s.deps.Agents.ListAgents(args.Skill, args.Query))
	if agents == nil {
		agents = []AgentInfo{}
	}
	for i := range agents {
		if agents[i].Skills == nil {
			agents[i].Skills = []SkillInfo{}
		}
	}
	return agents, nil
}
