// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package tools holds the functions an LLM calls to work with other agents:
// invoke_agent, list_known_agents, get_from_working_memory, task_status and
// cancel_task. The chat loop, LLM-backed agents and the MCP server share this
// one definition of each tool: its JSON Schema (draft 2020-12), offered in the
// OpenAI function-calling shape by Definition or as llm.Tool by LLMTools, and
// its errors. Call validates the arguments against the schema before acting,
// so a wrong call comes back as an *ArgumentError that names the argument and
// the rule; a task that cannot be acted on is a *TaskError; ErrorResult
// renders any error as a tool result the LLM can read, and Set.Run (an
// llm.Dispatch) is the one place tool errors become such results.
//
// invoke_agent returns at once by default (the result is notified into the
// conversation); with "wait": true it returns the outcome inline, which is
// what an LLM-backed agent needs to use a sub-agent inside one task. An
// agent may end a turn with a question instead (the task waits for input):
// invoke_agent with "task_id" answers it (caller.Reply), "context_id"
// starts a task in the context of an earlier one, and task_status shows
// the question and the task's turn.
// task_status and cancel_task act only on the tasks of the Set's session.
//
// A Set may be restricted (an LLM agent skill's allowed_tools): Deps.Only names the
// tools offered, Deps.AllowedAgents the agents invoke_agent may call and
// list_known_agents shows.
//
// The package depends on the agent directory only through Lister and
// caller.Resolver, on the calling side only through Invoker, TaskReader,
// Canceler, Watcher and Replier (all implemented by *caller.Caller), and on working
// memory only through MemoryReader.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
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

// Warmer is a Lister whose listing fills in after its process starts (the
// directory's restore and first discovery round; DirectoryLister is one):
// Warm is closed once it has. list_known_agents waits for it, bounded by
// Deps.WarmWait, and otherwise says that the listing is still warming up.
type Warmer interface {
	Warm() <-chan struct{}
}

// DefaultWarmWait is Deps.WarmWait's default: longer than the directory's
// first discovery round (1s), short enough for a model's turn.
const DefaultWarmWait = 5 * time.Second

// TaskReader reads what the caller knows of a task it invoked
// (*caller.Caller implements it): task_status and cancel_task need it.
type TaskReader interface {
	Task(ctx context.Context, taskID string) (*caller.TaskInfo, error)
}

// Canceler cancels a task the caller invoked (*caller.Caller implements it):
// cancel_task needs it.
type Canceler interface {
	Cancel(ctx context.Context, taskID string) error
}

// Watcher invokes a task watched from before its publish (*caller.Caller
// implements it): invoke_agent needs it to wait for an outcome, and uses it
// to follow its tasks' status updates (Deps.OnStatus, task_status).
type Watcher interface {
	InvokeWatched(ctx context.Context, req caller.Request) (caller.Invocation, *caller.Watch, error)
}

// Deps are what the tools act on. Only the dependencies of the offered
// tools are required.
type Deps struct {
	// Caller publishes invoke_agent's tasks. Required for invoke_agent.
	Caller Invoker
	// Agents answers list_known_agents. Required for list_known_agents.
	Agents Lister
	// WarmWait bounds how long list_known_agents waits for Agents, when it
	// is a Warmer, to be warm: the first call of a Set waits at most this
	// long, later ones not at all (each says whether it is still warming
	// up). 0 is DefaultWarmWait; negative does not wait.
	WarmWait time.Duration
	// Resolver checks invoke_agent's agent and skill first; nil sends them as given.
	Resolver caller.Resolver
	// Memory is read by get_from_working_memory. Required for get_from_working_memory.
	Memory MemoryReader
	// Tasks answers task_status and cancel_task; nil takes Caller when it
	// implements TaskReader.
	Tasks TaskReader
	// Canceler serves cancel_task; nil takes Caller when it implements Canceler.
	Canceler Canceler
	// Watcher lets invoke_agent wait and follow status updates; nil takes
	// Caller when it implements Watcher. Without one, "wait" is refused.
	Watcher Watcher
	// Replier lets invoke_agent answer a task's question (task_id); nil
	// takes Caller when it implements Replier. Without one, task_id is refused.
	Replier Replier
	// OnStatus, when set, receives the status updates of the tasks
	// invoke_agent started through a Watcher (waited or not), e.g. for an
	// MCP progress notification or a live display; it may be called from
	// several goroutines at once and must not block.
	OnStatus func(taskID string, st *a2a.TaskStatus)
	// Only names the tools offered (an LLM agent skill's allowed_tools). nil offers
	// invoke_agent, list_known_agents and get_from_working_memory, plus
	// task_status and cancel_task when their dependencies are at hand (a
	// *caller.Caller as Caller gives them); empty offers none. An unknown
	// name is an error wrapping ErrInvalidDeps.
	Only []string
	// AllowedAgents are the agents invoke_agent may call and
	// list_known_agents shows, case-insensitive: nil allows all, empty none.
	AllowedAgents []string
	// SessionID is the conversation the tools serve: results are notified
	// into it, get_from_working_memory reads only its keys, task_status and
	// cancel_task see only its tasks. Required.
	SessionID string
	// Logger receives one debug line per call; nil means no logging.
	Logger *zap.Logger
}

// normalize fills the optional dependencies from Caller, picks the offered
// tools and checks that their dependencies are given.
func (d *Deps) normalize() ([]definition, error) {
	if d.Tasks == nil {
		d.Tasks, _ = d.Caller.(TaskReader)
	}
	if d.Canceler == nil {
		d.Canceler, _ = d.Caller.(Canceler)
	}
	if d.Watcher == nil {
		d.Watcher, _ = d.Caller.(Watcher)
	}
	if d.Replier == nil {
		d.Replier, _ = d.Caller.(Replier)
	}
	offered, err := d.offered()
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, def := range offered {
		for _, dep := range def.needs {
			if d.absent(dep) && !slices.Contains(missing, dep) {
				missing = append(missing, dep)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("%w: %s required", ErrInvalidDeps, strings.Join(missing, ", "))
	}
	if err := a2a.ValidateSessionID(d.SessionID); err != nil {
		return nil, fmt.Errorf("%w: SessionID: %w", ErrInvalidDeps, err)
	}
	for _, name := range d.AllowedAgents {
		if err := a2a.ValidateAgentName(name); err != nil {
			return nil, fmt.Errorf("%w: AllowedAgents: %w", ErrInvalidDeps, err)
		}
	}
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	if d.WarmWait == 0 {
		d.WarmWait = DefaultWarmWait
	}
	return offered, nil
}

// offered are the definitions of the tools to offer, in their order.
func (d *Deps) offered() ([]definition, error) {
	if d.Only == nil {
		var out []definition
		for _, def := range definitions {
			if !def.optional || !slices.ContainsFunc(def.needs, d.absent) {
				out = append(out, def)
			}
		}
		return out, nil
	}
	for _, name := range d.Only {
		if !slices.ContainsFunc(definitions, func(def definition) bool { return def.name == name }) {
			return nil, fmt.Errorf("%w: Only: unknown tool %q; the tools are: %s", ErrInvalidDeps, name, allToolNames())
		}
	}
	var out []definition
	for _, def := range definitions {
		if slices.Contains(d.Only, def.name) {
			out = append(out, def)
		}
	}
	return out, nil
}

// absent reports whether the dependency named dep (a Deps field) is nil.
func (d *Deps) absent(dep string) bool {
	switch dep {
	case "Caller":
		return d.Caller == nil
	case "Agents":
		return d.Agents == nil
	case "Memory":
		return d.Memory == nil
	case "Tasks":
		return d.Tasks == nil
	case "Canceler":
		return d.Canceler == nil
	}
	return true
}

// allToolNames lists every tool's name, in order.
func allToolNames() string {
	names := make([]string, len(definitions))
	for i, d := range definitions {
		names[i] = d.name
	}
	return strings.Join(names, ", ")
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
		return redact.Default().JSON(raw), nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%s: encode result: %w", t.Name, err)
	}
	// What a tool returns goes to a model: the one redaction pass hides its
	// secrets (a stored result kept as sent, an agent's inline answer).
	return redact.Default().JSON(out), nil
}

// definition is the fixed part of a tool: name, description and arguments.
type definition struct {
	name        string
	description string
	params      []param
	// needs names the Deps fields the tool acts on.
	needs []string
	// optional tools are offered by default only when their needs are met.
	optional bool
}

// definitions lists the tools in the order Tools returns them.
var definitions = []definition{invokeAgentDef, listKnownAgentsDef, getFromWorkingMemoryDef, taskStatusDef, cancelTaskDef}

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
// concurrent use. Close stops following the status updates of its tasks.
type Set struct {
	deps          Deps
	sessionPrefix string
	tools         []Tool
	// allowed holds the lower-case names of Deps.AllowedAgents; nil allows all.
	allowed map[string]bool
	tasks   *tracker
	// waited is set once a list_known_agents call waited WarmWait for Agents in vain.
	waited atomic.Bool
}

// New binds the tools to d. Missing or invalid dependencies, and an unknown
// tool in d.Only, are an error wrapping ErrInvalidDeps.
func New(d Deps) (*Set, error) {
	offered, err := d.normalize()
	if err != nil {
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
	s := &Set{deps: d, sessionPrefix: prefix, tasks: newTracker()}
	if d.AllowedAgents != nil {
		s.allowed = make(map[string]bool, len(d.AllowedAgents))
		for _, name := range d.AllowedAgents {
			s.allowed[strings.ToLower(name)] = true
		}
	}
	calls := map[string]func(context.Context, json.RawMessage) (any, error){
		invokeAgentDef.name:          s.invokeAgent,
		listKnownAgentsDef.name:      s.listKnownAgents,
		getFromWorkingMemoryDef.name: s.getFromWorkingMemory,
		taskStatusDef.name:           s.taskStatus,
		cancelTaskDef.name:           s.cancelTask,
	}
	for _, def := range offered {
		sch := compiled[def.name]
		s.tools = append(s.tools, Tool{Name: def.name, Description: def.description, Parameters: slices.Clone(sch.raw),
			call: calls[def.name], args: sch, log: d.Logger})
	}
	return s, nil
}

// Close stops following the tasks invoke_agent started (their outcomes are
// still stored and notified by the caller) and waits, bounded, for the
// followers to end. Idempotent; the tools keep working without following.
func (s *Set) Close() error { return s.tasks.close() }

// Tools returns the offered tools, in the order invoke_agent,
// list_known_agents, get_from_working_memory, task_status, cancel_task.
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
