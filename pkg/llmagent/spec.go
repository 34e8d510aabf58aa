// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package llmagent runs LLM-backed agents declared in YAML: each
// skill has a system prompt, an input schema, a whitelist of bus tools and
// of agents it may call, and a context filter that picks the few turns of
// the task's session conversation the model gets. A task runs THE shared
// tool loop (llm.Loop); its result carries the tokens used, the tools
// called, the model and the context filter's figures.
//
//	spec := llmagent.Load("agents.d/summarizer.yaml") → n.Agent(spec.Card()) → llmagent.New(Options{…}).Register(a)
package llmagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
)

// Defaults of a Spec, applied by Load (and Normalize).
const (
	// DefaultVersion is the card's version when the file names none.
	DefaultVersion = "1.0"
	// DefaultMaxSubAgentDepth bounds the call chain of sub-agent calls.
	DefaultMaxSubAgentDepth = 5
	// DefaultMaxToolRounds bounds the model requests of one task that ask for tools.
	DefaultMaxToolRounds = 4
	// DefaultMaxContextTokens is the token budget of the filtered context.
	DefaultMaxContextTokens = 4000
	// DefaultLastMessages is how many turns the context keeps when the filter names no number.
	DefaultLastMessages = 10
)

// Bus tool names a skill may allow.
const (
	ToolInvokeAgent          = "invoke_agent"
	ToolListKnownAgents      = "list_known_agents"
	ToolGetFromWorkingMemory = "get_from_working_memory"
	ToolCancelTask           = "cancel_task"
	ToolTaskStatus           = "task_status"
)

// KnownTools are the tool names allowed_tools accepts.
var KnownTools = []string{ToolInvokeAgent, ToolListKnownAgents, ToolGetFromWorkingMemory, ToolCancelTask, ToolTaskStatus}

// AnyAgent in allowed_agents allows calling every agent.
const AnyAgent = "*"

// RoleNotification is the context filter's name for the notification turns
// the caller injects (role user, meta kind a2a.notification): they are kept
// only when roles names it.
const RoleNotification = "notification"

// ErrInvalidSpec: an agent file breaks a rule; see *SpecError.
var ErrInvalidSpec = errors.New("llmagent: invalid agent file")

// SpecError names the file, the field path (e.g. skills[0].context.max_age)
// and the rule broken. It wraps ErrInvalidSpec (and Err when set).
type SpecError struct {
	// File is the agent file ("" for a Spec built in code).
	File string
	// Path is the field concerned, "" for the file as a whole.
	Path string
	// Rule says what is wrong.
	Rule string
	// Err is an underlying cause, or nil.
	Err error
}

// Error is "llmagent: FILE: PATH: RULE".
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString("llmagent: ")
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Rule)
	return b.String()
}

// Unwrap returns ErrInvalidSpec and the cause, if any.
func (e *SpecError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidSpec, e.Err}
	}
	return []error{ErrInvalidSpec}
}

// Spec declares one LLM-backed agent, as an agent file holds it.
type Spec struct {
	// Name is the agent's bus name. Required.
	Name string `yaml:"name"`
	// Description is the card's description. Required.
	Description string `yaml:"description"`
	// Version is the card's version; default DefaultVersion.
	Version string `yaml:"version"`
	// Skills are the agent's skills; at least one.
	Skills []Skill `yaml:"skills"`

	// File is the file the spec was loaded from.
	File string `yaml:"-"`
}

// Skill is one skill of an LLM-backed agent.
type Skill struct {
	// ID is the skill id callers name. Required.
	ID string `yaml:"id"`
	// Name is the card's skill name; default the id.
	Name string `yaml:"name"`
	// Description says what the skill does and what input it takes.
	Description string `yaml:"description"`
	// Tags and Examples go on the card.
	Tags     []string `yaml:"tags"`
	Examples []string `yaml:"examples"`
	// SystemPrompt is the model's system message for every task. Required.
	SystemPrompt string `yaml:"system_prompt"`
	// InputSchema is the JSON Schema of the skill's structured input (a
	// YAML mapping or a JSON string); the agent checks every task against it.
	InputSchema json.RawMessage `yaml:"input_schema"`
	// AllowedTools are the bus tools the model may call (KnownTools); default none.
	AllowedTools []string `yaml:"allowed_tools"`
	// AllowedAgents are the agents invoke_agent may call (AnyAgent for
	// any); default none.
	AllowedAgents []string `yaml:"allowed_agents"`
	// AllowSubAgentCalls lets the skill call other agents (invoke_agent);
	// default false.
	AllowSubAgentCalls bool `yaml:"allow_sub_agent_calls"`
	// MaxSubAgentDepth bounds the call chain (origin included) a sub-agent
	// call may make; default DefaultMaxSubAgentDepth.
	MaxSubAgentDepth int `yaml:"max_sub_agent_depth"`
	// MaxToolRounds bounds the model requests of one task that ask for
	// tools; default DefaultMaxToolRounds.
	MaxToolRounds int `yaml:"max_tool_rounds"`
	// MaxContextTokens bounds the filtered context, in estimated tokens;
	// default DefaultMaxContextTokens.
	MaxContextTokens int `yaml:"max_context_tokens"`
	// Context filters the session's conversation the model gets.
	Context ContextFilter `yaml:"context"`
}

// ContextFilter picks the turns of the task's session conversation that the
// model gets, in this order: max age, roles, keywords, last N, summary
// of the rest, then the token and char budgets (newest kept first).
type ContextFilter struct {
	// LastMessages keeps the newest N turns that pass the other filters;
	// default DefaultLastMessages; -1 keeps them all (the budgets still apply).
	LastMessages int `yaml:"last_messages"`
	// Roles keeps turns of these roles (user, assistant, system, tool,
	// notification); default user and assistant.
	Roles []string `yaml:"roles"`
	// MaxAge keeps turns appended at most this long before the task; 0: any age.
	MaxAge time.Duration `yaml:"max_age"`
	// Keywords keeps turns containing at least one of them (case-insensitive); none: every turn.
	Keywords []string `yaml:"keywords"`
	// MaxChars bounds the characters of the kept turns; 0: no bound beyond the token budget.
	MaxChars int `yaml:"max_chars"`
	// IncludeSummary adds an extractive summary of the turns the filter dropped.
	IncludeSummary bool `yaml:"include_summary"`
}

// DefaultRoles are the roles the context keeps when the filter names none.
var DefaultRoles = []string{"user", "assistant"}

var knownRoles = []string{"user", "assistant", "system", "tool", RoleNotification}

// Normalize applies the defaults and checks every rule, returning a
// *SpecError naming the first field at fault.
func (s *Spec) Normalize() error {
	fail := func(path, format string, args ...any) error {
		return &SpecError{File: s.File, Path: path, Rule: fmt.Sprintf(format, args...)}
	}
	if err := a2a.ValidateAgentName(s.Name); err != nil {
		return &SpecError{File: s.File, Path: "name", Rule: fmt.Sprintf("%q is not an agent name: %v", s.Name, err), Err: err}
	}
	if strings.TrimSpace(s.Description) == "" {
		return fail("description", "is required: the card tells callers what the agent does")
	}
	if s.Version == "" {
		s.Version = DefaultVersion
	}
	if len(s.Skills) == 0 {
		return fail("skills", "at least one skill is required")
	}
	seen := map[string]bool{}
	for i := range s.Skills {
		sk := &s.Skills[i]
		path := fmt.Sprintf("skills[%d]", i)
		if err := sk.normalize(s.File, path); err != nil {
			return err
		}
		if seen[sk.ID] {
			return fail(path+".id", "skill %q is declared twice", sk.ID)
		}
		seen[sk.ID] = true
	}
	return nil
}

// Skill returns the skill with id, or nil.
func (s *Spec) Skill(id string) *Skill {
	i := slices.IndexFunc(s.Skills, func(sk Skill) bool { return sk.ID == id })
	if i < 0 {
		return nil
	}
	return &s.Skills[i]
}

// Card is the agent's card: name, description, version and one entry per skill.
func (s *Spec) Card() a2a.AgentCard {
	card := a2a.AgentCard{
		Name: s.Name, Description: s.Description, Version: s.Version,
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
	}
	for _, sk := range s.Skills {
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: sk.ID, Name: sk.Name, Description: sk.Description,
			Tags: slices.Clone(sk.Tags), Examples: slices.Clone(sk.Examples)})
	}
	return card
}

// Allows reports whether the skill's tool whitelist holds tool.
func (sk *Skill) Allows(tool string) bool { return slices.Contains(sk.AllowedTools, tool) }

// MayCall reports whether allowed_agents lets the skill call agent (case-insensitive).
func (sk *Skill) MayCall(agent string) bool {
	return slices.ContainsFunc(sk.AllowedAgents, func(a string) bool { return a == AnyAgent || a2a.SameAgent(a, agent) })
}

// normalize applies the skill's defaults and checks its rules.
func (sk *Skill) normalize(file, path string) error {
	fail := func(field, format string, args ...any) error {
		return &SpecError{File: file, Path: path + "." + field, Rule: fmt.Sprintf(format, args...)}
	}
	if err := a2a.ValidateSkillID(sk.ID); err != nil {
		return &SpecError{File: file, Path: path + ".id", Rule: fmt.Sprintf("%q is not a skill id: %v", sk.ID, err), Err: err}
	}
	if sk.Name == "" {
		sk.Name = sk.ID
	}
	if strings.TrimSpace(sk.SystemPrompt) == "" {
		return fail("system_prompt", "is required: it tells the model its job")
	}
	if len(sk.InputSchema) > 0 {
		if _, err := schema.Compile(sk.InputSchema); err != nil {
			return &SpecError{File: file, Path: path + ".input_schema", Rule: err.Error(), Err: err}
		}
	}
	for i, t := range sk.AllowedTools {
		if !slices.Contains(KnownTools, t) {
			return fail(fmt.Sprintf("allowed_tools[%d]", i), "unknown tool %q; the tools are %s", t, strings.Join(KnownTools, ", "))
		}
		if slices.Index(sk.AllowedTools, t) != i {
			return fail(fmt.Sprintf("allowed_tools[%d]", i), "tool %q is listed twice", t)
		}
	}
	for i, a := range sk.AllowedAgents {
		if a == AnyAgent {
			continue
		}
		if err := a2a.ValidateAgentName(a); err != nil {
			return &SpecError{File: file, Path: fmt.Sprintf("%s.allowed_agents[%d]", path, i), Rule: fmt.Sprintf("%q is not an agent name (or %q for any): %v", a, AnyAgent, err), Err: err}
		}
	}
	invoke := sk.Allows(ToolInvokeAgent)
	switch {
	case invoke && !sk.AllowSubAgentCalls:
		return fail("allowed_tools", "%s is allowed but allow_sub_agent_calls is false: set allow_sub_agent_calls: true, or drop the tool", ToolInvokeAgent)
	case sk.AllowSubAgentCalls && !invoke:
		return fail("allow_sub_agent_calls", "is true but allowed_tools lacks %s, the tool that calls agents", ToolInvokeAgent)
	case sk.AllowSubAgentCalls && len(sk.AllowedAgents) == 0:
		return fail("allowed_agents", "names no agent, so allow_sub_agent_calls could call none: list the agents (or %q for any)", AnyAgent)
	case !sk.AllowSubAgentCalls && len(sk.AllowedAgents) > 0:
		return fail("allowed_agents", "lists agents but allow_sub_agent_calls is false")
	}
	if err := defaultPositive(&sk.MaxSubAgentDepth, DefaultMaxSubAgentDepth); err != nil {
		return fail("max_sub_agent_depth", "%v", err)
	}
	if sk.MaxSubAgentDepth < 2 && sk.AllowSubAgentCalls {
		return fail("max_sub_agent_depth", "is %d: a sub-agent call needs a depth of at least 2 (the caller and the agent it calls)", sk.MaxSubAgentDepth)
	}
	if err := defaultPositive(&sk.MaxToolRounds, DefaultMaxToolRounds); err != nil {
		return fail("max_tool_rounds", "%v", err)
	}
	if err := defaultPositive(&sk.MaxContextTokens, DefaultMaxContextTokens); err != nil {
		return fail("max_context_tokens", "%v", err)
	}
	return sk.Context.normalize(file, path+".context")
}

// normalize applies the filter's defaults and checks its rules.
func (f *ContextFilter) normalize(file, path string) error {
	fail := func(field, format string, args ...any) error {
		return &SpecError{File: file, Path: path + "." + field, Rule: fmt.Sprintf(format, args...)}
	}
	switch {
	case f.LastMessages == 0:
		f.LastMessages = DefaultLastMessages
	case f.LastMessages < -1:
		return fail("last_messages", "must be a positive number of turns (or -1 for all), got %d", f.LastMessages)
	}
	if len(f.Roles) == 0 {
		f.Roles = slices.Clone(DefaultRoles)
	}
	for i, r := range f.Roles {
		if !slices.Contains(knownRoles, r) {
			return fail(fmt.Sprintf("roles[%d]", i), "unknown role %q; the roles are %s", r, strings.Join(knownRoles, ", "))
		}
	}
	if f.MaxAge < 0 {
		return fail("max_age", "must be a positive duration such as 10m, got %s", f.MaxAge)
	}
	for i, k := range f.Keywords {
		if strings.TrimSpace(k) == "" {
			return fail(fmt.Sprintf("keywords[%d]", i), "is empty: it would match every turn")
		}
	}
	if f.MaxChars < 0 {
		return fail("max_chars", "must be positive (or 0 for no bound), got %d", f.MaxChars)
	}
	return nil
}

// defaultPositive sets *v to def when 0 and refuses a negative value.
func defaultPositive(v *int, def int) error {
	switch {
	case *v == 0:
		*v = def
	case *v < 0:
		return fmt.Errorf("must be positive, got %d", *v)
	}
	return nil
}
