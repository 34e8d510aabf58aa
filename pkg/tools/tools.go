// Package tools holds the functions an LLM calls to work with other agents:
// invoke_agent, list_known_agents and get_from_working_memory. Each is a Tool
// with a JSON Schema (draft 2020-12) of its arguments, offered in the OpenAI
// function-calling shape by Definition. Call validates the arguments against
// the schema before acting, so a wrong call comes back as an *ArgumentError
// that names the argument and the rule; ErrorResult renders any error as a
// tool result the LLM can read.
//
// The package depends on the agent directory only through Lister and
// Resolver, and on the calling side only through Invoker.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Invoker starts a task on another agent (*caller.Caller implements it).
type Invoker interface {
	Invoke(ctx context.Context, req caller.Request) (caller.Invocation, error)
}

// Lister lists the known agents whose skills include skill ("" for any)
// and whose name or description matches query ("" for any).
type Lister interface {
	ListAgents(skill, query string) []AgentInfo
}

// Resolver returns the canonical spelling of agent after checking that it
// offers skill; failures are *a2a.Error with AGENT_NOT_FOUND or SKILL_NOT_SUPPORTED.
type Resolver interface {
	Resolve(agent, skill string) (string, error)
}

// Deps are what the tools act on.
type Deps struct {
	// Caller publishes invoke_agent's tasks. Required.
	Caller Invoker
	// Agents answers list_known_agents. Required.
	Agents Lister
	// Resolver checks invoke_agent's agent and skill first; nil sends them as given.
	Resolver Resolver
	// Memory is read by get_from_working_memory. Required.
	Memory memory.Store
	// SessionID is the conversation the tools serve: results are notified
	// into it, and get_from_working_memory reads only its keys. Required.
	SessionID string
	// Logger receives one debug line per call; nil means no logging.
	Logger *zap.Logger
}

func (d *Deps) normalize() error {
	var missing []string
	for name, absent := range map[string]bool{"Caller": d.Caller == nil, "Agents": d.Agents == nil, "Memory": d.Memory == nil} {
		if absent {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%w: %s required", ErrInvalidDeps, strings.Join(missing, ", "))
	}
	if err := a2a.ValidateSessionID(d.SessionID); err != nil {
		return fmt.Errorf("%w: SessionID: %w", ErrInvalidDeps, err)
	}
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	return nil
}

// Tool is one function an LLM can call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema (draft 2020-12) of the arguments object.
	Parameters json.RawMessage

	call func(ctx context.Context, args json.RawMessage) (any, error)
	args *argSchema
	log  *zap.Logger
}

// Definition is the tool in the OpenAI function-calling shape:
// {"type":"function","function":{"name","description","parameters"}}.
func (t Tool) Definition() map[string]any {
	return map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        t.Name,
			"description": t.Description,
			"parameters":  json.RawMessage(slices.Clone(t.Parameters)),
		},
	}
}

// Call validates args against Parameters, runs the tool and returns its
// result as JSON. Bad arguments are an *ArgumentError (one, or several
// joined); failures of the call itself are returned as they come (e.g. an
// *a2a.Error), wrapped with the tool's name.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if t.call == nil || t.args == nil {
		return nil, fmt.Errorf("%w: %q was not built by tools.New", ErrUnknownTool, t.Name)
	}
	start := time.Now()
	out, err := t.run(ctx, args)
	t.log.Debug("tool called", zap.String("tool", t.Name), zap.Duration("took", time.Since(start)), zap.Error(err))
	return out, err
}

func (t Tool) run(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if err := t.args.validate(args); err != nil {
		return nil, err
	}
	res, err := t.call(ctx, args)
	if err != nil {
		return nil, err
	}
	if raw, ok := res.(json.RawMessage); ok { // already checked JSON: no second pass
		return raw, nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", t.Name, err)
	}
	return out, nil
}

// definition is the fixed part of a tool: name, description and arguments.
type definition struct {
	name        string
	description string
	params      []param
}

// definitions lists the tools in the order Tools returns them.
var definitions = []definition{invokeAgentDef, listKnownAgentsDef, getFromWorkingMemoryDef}

// schemas compiles every tool's arguments schema once per process.
var schemas = sync.OnceValues(func() (map[string]*argSchema, error) {
	out := make(map[string]*argSchema, len(definitions))
	for _, d := range definitions {
		s, err := newArgSchema(d.name, d.params)
		if err != nil {
			return nil, err
		}
		out[d.name] = s
	}
	return out, nil
})

// Set is the tools bound to one conversation's dependencies. It is safe for
// concurrent use.
type Set struct {
	deps          Deps
	sessionPrefix string
	tools         []Tool
}

// New binds the tools to d. Missing or invalid dependencies are an error
// wrapping ErrInvalidDeps.
func New(d Deps) (*Set, error) {
	if err := d.normalize(); err != nil {
		return nil, err
	}
	compiled, err := schemas()
	if err != nil {
		return nil, err
	}
	prefix, err := memory.SessionPrefix(d.SessionID)
	if err != nil {
		return nil, fmt.Errorf("%w: SessionID: %w", ErrInvalidDeps, err)
	}
	s := &Set{deps: d, sessionPrefix: prefix}
	calls := map[string]func(context.Context, json.RawMessage) (any, error){
		invokeAgentDef.name:          s.invokeAgent,
		listKnownAgentsDef.name:      s.listKnownAgents,
		getFromWorkingMemoryDef.name: s.getFromWorkingMemory,
	}
	for _, def := range definitions {
		sch := compiled[def.name]
		s.tools = append(s.tools, Tool{Name: def.name, Description: def.description, Parameters: slices.Clone(sch.raw),
			call: calls[def.name], args: sch, log: d.Logger})
	}
	return s, nil
}

// Tools returns the tools: invoke_agent, list_known_agents, get_from_working_memory.
func (s *Set) Tools() []Tool { return slices.Clone(s.tools) }

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	i := slices.IndexFunc(s.tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return s.tools[i], true
}

// Definitions returns every tool's Definition, ready to send to an LLM.
func (s *Set) Definitions() []map[string]any {
	out := make([]map[string]any, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.Definition()
	}
	return out
}

// Dispatch calls the tool called name with args; an unknown name is an
// error wrapping ErrUnknownTool that lists the tools.
func (s *Set) Dispatch(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	t, ok := s.Get(name)
	if !ok {
		names := make([]string, len(s.tools))
		for i, t := range s.tools {
			names[i] = t.Name
		}
		err := fmt.Errorf("%w %q; the tools are: %s", ErrUnknownTool, name, strings.Join(names, ", "))
		s.deps.Logger.Debug("tool called", zap.String("tool", name), zap.Error(err))
		return nil, err
	}
	return t.Call(ctx, args)
}

// decodeArgs decodes validated args ("" is {}) into v.
func decodeArgs(tool string, args json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(args))) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%s: decode arguments: %w", tool, err)
	}
	return nil
}
