// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

const session = "s1"

// fakeInvoker records the requests and answers with a fixed task id.
type fakeInvoker struct {
	mu   sync.Mutex
	reqs []caller.Request
	err  error
}

func (f *fakeInvoker) Invoke(_ context.Context, req caller.Request) (caller.Invocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.err != nil && !errors.Is(f.err, caller.ErrOutcomeUnknown) {
		return caller.Invocation{}, f.err
	}
	id := fmt.Sprintf("task-%d", len(f.reqs))
	key, err := memory.ResultKey(req.SessionID, req.Target, id)
	if err != nil {
		return caller.Invocation{}, fmt.Errorf("%w: %w", caller.ErrInvalidRequest, err)
	}
	// A task sent with its outcome unknown comes back with the error, as caller.Invoke returns it.
	return caller.Invocation{TaskID: id, SessionID: req.SessionID, Target: req.Target, MemoryKey: key}, f.err
}

func (f *fakeInvoker) requests() []caller.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// fakeLister returns its agents and records the filters it was given.
type fakeLister struct {
	mu           sync.Mutex
	agents       []tools.AgentInfo
	calls        int
	skill, query string
}

func (f *fakeLister) ListAgents(skill, query string) []tools.AgentInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.skill, f.query = skill, query
	return f.agents
}

// fakeResolver knows agents (canonical name → skills) case-insensitively.
type fakeResolver map[string][]string

func (f fakeResolver) Resolve(_ context.Context, agent, skill string) (string, error) {
	for name, skills := range f {
		if !a2a.SameAgent(name, agent) {
			continue
		}
		if !slices.Contains(skills, skill) {
			return "", a2a.NewError(a2a.CodeSkillNotSupported, "agent %q has no skill %q (skills: %s)", name, skill, strings.Join(skills, ", "))
		}
		return name, nil
	}
	return "", a2a.NewError(a2a.CodeAgentNotFound, "no agent named %q", agent)
}

// InputSchema: the fake agents declare no schemas.
func (fakeResolver) InputSchema(string, string) (json.RawMessage, bool) { return nil, false }

// fakeTasks answers Task from a map and records the cancels.
type fakeTasks struct {
	mu        sync.Mutex
	tasks     map[string]*caller.TaskInfo
	reads     int
	cancels   []string
	readErr   error
	cancelErr error
}

func (f *fakeTasks) Task(_ context.Context, id string) (*caller.TaskInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.readErr != nil {
		return nil, f.readErr
	}
	info, ok := f.tasks[id]
	if !ok {
		return nil, fmt.Errorf("caller %q: task %s: %w", "Primary", id, caller.ErrUnknownTask)
	}
	c := *info
	return &c, nil
}

func (f *fakeTasks) Cancel(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, id)
	return f.cancelErr
}

func (f *fakeTasks) put(info *caller.TaskInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tasks == nil {
		f.tasks = map[string]*caller.TaskInfo{}
	}
	f.tasks[info.TaskID] = info
}

// fixture is a Set on fakes and an in-memory store with a settable clock.
type fixture struct {
	set    *tools.Set
	inv    *fakeInvoker
	agents *fakeLister
	tasks  *fakeTasks
	mem    *inmem.Memory
	clock  *testenv.Clock
}

// newFixture offers every tool, on fakes.
func newFixture(t testing.TB, resolver caller.Resolver, mod ...func(*tools.Deps)) *fixture {
	t.Helper()
	f := &fixture{inv: &fakeInvoker{}, agents: &fakeLister{}, tasks: &fakeTasks{}, clock: testenv.NewClock()}
	f.mem = inmem.New(inmem.Options{Now: f.clock.Now})
	t.Cleanup(func() { _ = f.mem.Close() })
	d := tools.Deps{Caller: f.inv, Agents: f.agents, Resolver: resolver, Memory: f.mem, Tasks: f.tasks, Canceler: f.tasks, SessionID: session}
	for _, m := range mod {
		m(&d)
	}
	set, err := tools.New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	f.set = set
	return f
}

// call dispatches a tool and decodes its result into a generic value.
func (f *fixture) call(t testing.TB, tool, args string) (any, error) {
	t.Helper()
	out, err := f.set.Dispatch(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		if out != nil {
			t.Errorf("%s: result %s returned with error %v", tool, out, err)
		}
		return nil, err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s returned invalid JSON %q: %v", tool, out, err)
	}
	return v, nil
}

func TestNewValidatesDeps(t *testing.T) {
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	full := tools.Deps{Caller: &fakeInvoker{}, Agents: &fakeLister{}, Memory: mem, SessionID: session}
	cases := []struct {
		name string
		mod  func(*tools.Deps)
		want string
	}{
		{"no caller", func(d *tools.Deps) { d.Caller = nil }, "tools: invalid dependencies: Caller required"},
		{"nothing", func(d *tools.Deps) { *d = tools.Deps{SessionID: session} }, "tools: invalid dependencies: Agents, Caller, Memory required"},
		{"no session", func(d *tools.Deps) { d.SessionID = "" }, "tools: invalid dependencies: SessionID: a2a: invalid name: session id is empty"},
		{"bad session", func(d *tools.Deps) { d.SessionID = "a/b" }, `SessionID: a2a: invalid name: session id "a/b" must match`},
		{"new tools named without their dependencies", func(d *tools.Deps) { d.Only = []string{"cancel_task"} },
			"tools: invalid dependencies: Canceler, Tasks required"},
		{"only what the offered tools need", func(d *tools.Deps) { d.Caller, d.Only = nil, []string{"get_from_working_memory"} }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := full
			c.mod(&d)
			set, err := tools.New(d)
			if c.want == "" {
				if err != nil {
					t.Fatalf("New = %v", err)
				}
				return
			}
			if set != nil || !errors.Is(err, tools.ErrInvalidDeps) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want ErrInvalidDeps containing %q", set, err, c.want)
			}
		})
	}
	if _, err := tools.New(full); err != nil {
		t.Fatalf("New with every dependency: %v", err)
	}
}

// definition is the OpenAI function-calling shape, decoded strictly.
type definition struct {
	Type     string `json:"type"`
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		} `json:"parameters"`
	} `json:"function"`
}

func decodeDefinitions(t *testing.T, set *tools.Set) []definition {
	t.Helper()
	raw, err := json.Marshal(set.Definitions())
	if err != nil {
		t.Fatalf("definitions do not encode: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var defs []definition
	if err := dec.Decode(&defs); err != nil {
		t.Fatalf("definitions %s are not in the OpenAI shape: %v", raw, err)
	}
	return defs
}

func TestDefinitionsShape(t *testing.T) {
	f := newFixture(t, nil)
	defs := decodeDefinitions(t, f.set)
	want := []struct {
		name     string
		props    []string
		required []string
	}{
		{"invoke_agent", []string{"agent_name", "skill", "message", "input", "timeout_seconds", "wait_timeout_seconds", "priority", "wait", "task_id", "option", "context_id",
			"context", "max_context_tokens", "allowed_tools", "allow_nested_calls"}, []string{}},
		{"list_known_agents", []string{"skill", "query", "limit", "cursor"}, []string{}},
		{"get_from_working_memory", []string{"key"}, []string{"key"}},
		{"task_status", []string{"task_id"}, []string{"task_id"}},
		{"cancel_task", []string{"task_id"}, []string{"task_id"}},
	}
	if len(defs) != len(want) {
		t.Fatalf("%d definitions, want %d", len(defs), len(want))
	}
	for i, w := range want {
		d := defs[i]
		fn := d.Function
		if d.Type != "function" || fn.Name != w.name || len(fn.Description) < 40 {
			t.Errorf("definition %d: type %q name %q description %q", i, d.Type, fn.Name, fn.Description)
		}
		p := fn.Parameters
		if p.Type != "object" || p.AdditionalProperties == nil || *p.AdditionalProperties {
			t.Errorf("%s: parameters must be a closed object, got type %q additionalProperties %v", w.name, p.Type, p.AdditionalProperties)
		}
		var props []string
		for name, schema := range p.Properties {
			props = append(props, name)
			var s struct{ Description string }
			if json.Unmarshal(schema, &s) != nil || s.Description == "" {
				t.Errorf("%s: argument %q has no description", w.name, name)
			}
		}
		if !sameSet(props, w.props) || !slices.Equal(p.Required, w.required) {
			t.Errorf("%s: properties %v required %v; want %v and %v", w.name, props, p.Required, w.props, w.required)
		}
		tool, ok := f.set.Get(w.name)
		if !ok || tool.Name != w.name {
			t.Fatalf("Get(%q) = %v", w.name, ok)
		}
		if got := f.set.Tools()[i].Name; got != w.name {
			t.Errorf("Tools()[%d] = %q, want %q", i, got, w.name)
		}
	}
	// The properties are listed in the documented order in the raw schema.
	tool, _ := f.set.Get("invoke_agent")
	if s := string(tool.Parameters); !(strings.Index(s, `"agent_name"`) < strings.Index(s, `"skill"`) &&
		strings.Index(s, `"skill"`) < strings.Index(s, `"timeout_seconds"`)) {
		t.Errorf("invoke_agent's properties are not in order: %s", s)
	}
	var inv struct {
		Properties struct {
			Timeout struct {
				Type             string
				Minimum, Maximum int
			} `json:"timeout_seconds"`
			Priority struct{ Enum []string } `json:"priority"`
		}
	}
	if err := json.Unmarshal(tool.Parameters, &inv); err != nil {
		t.Fatal(err)
	}
	if tm := inv.Properties.Timeout; tm.Type != "integer" || tm.Minimum != 1 || tm.Maximum != 300 {
		t.Errorf("timeout_seconds schema %+v, want an integer in 1..300", tm)
	}
	if !slices.Equal(inv.Properties.Priority.Enum, []string{"high", "normal", "low"}) {
		t.Errorf("priority enum %v", inv.Properties.Priority.Enum)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestDefinitionIsACopy(t *testing.T) {
	f := newFixture(t, nil)
	tool, _ := f.set.Get("get_from_working_memory")
	before := string(tool.Parameters)
	params := tool.Definition()["function"].(map[string]any)["parameters"].(json.RawMessage)
	for i := range params {
		params[i] = ' '
	}
	again, _ := f.set.Get("get_from_working_memory")
	if string(again.Parameters) != before {
		t.Fatal("mutating a Definition changed the tool's schema")
	}
	list := f.set.Tools()
	list[0].Name = "changed"
	if f.set.Tools()[0].Name != "invoke_agent" {
		t.Fatal("mutating Tools() changed the set")
	}
}

// TestSchemaPatternsFollowA2A checks the schemas' name patterns accept exactly
// the names pkg/a2a accepts.
func TestSchemaPatternsFollowA2A(t *testing.T) {
	f := newFixture(t, nil)
	tool, _ := f.set.Get("invoke_agent")
	var s struct {
		Properties map[string]struct{ Pattern string }
	}
	if err := json.Unmarshal(tool.Parameters, &s); err != nil {
		t.Fatal(err)
	}
	if s.Properties["agent_name"].Pattern != `^[A-Za-z][A-Za-z0-9_-]{0,63}$` {
		t.Errorf("agent_name pattern %q", s.Properties["agent_name"].Pattern)
	}
	names := []string{"a", "A", "Echo", "research-agent", "a_b-C9", "1a", "_a", "-a", "a.b", "a b", "a*", "é", "",
		"a" + strings.Repeat("b", 63), "a" + strings.Repeat("b", 64), "9", "a..b", "a.", "x:y"}
	check := func(prop string, validate func(string) error) {
		re := regexp.MustCompile(s.Properties[prop].Pattern)
		for _, n := range names {
			if re.MatchString(n) != (validate(n) == nil) {
				t.Errorf("%s %q: schema pattern says %v, pkg/a2a says %v", prop, n, re.MatchString(n), validate(n))
			}
		}
	}
	check("agent_name", a2a.ValidateAgentName)
	check("skill", a2a.ValidateSkillID)

	status, _ := f.set.Get("task_status")
	if err := json.Unmarshal(status.Parameters, &s); err != nil {
		t.Fatal(err)
	}
	names = append(names, "0", "0a", "a-b_c", strings.Repeat("9", 128), strings.Repeat("9", 129), "3f2b8c1e-1d2a-4c1b-9a8e-0c7d6e5f4a3b")
	check("task_id", a2a.ValidateTaskID)
}

func TestDispatchUnknownTool(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.set.Dispatch(context.Background(), "invoke_agnet", json.RawMessage(`{}`))
	want := `tools: unknown tool "invoke_agnet"; the tools are: invoke_agent, list_known_agents, get_from_working_memory, task_status, cancel_task`
	if !errors.Is(err, tools.ErrUnknownTool) || err.Error() != want {
		t.Fatalf("Dispatch(unknown) = %v, want %q", err, want)
	}
	if _, ok := f.set.Get("nope"); ok {
		t.Fatal("Get(nope) found a tool")
	}
	if _, err := (tools.Tool{Name: "x"}).Call(context.Background(), nil); !errors.Is(err, tools.ErrUnknownTool) {
		t.Fatalf("calling a zero Tool = %v, want ErrUnknownTool", err)
	}
}

// TestConcurrentCalls runs the tools of one set from many goroutines (under -race).
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t, fakeResolver{"Echo": {"echo"}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			out, err := f.set.Dispatch(context.Background(), "invoke_agent", json.RawMessage(`{"agent_name":"echo","skill":"echo","message":"m"}`))
			if err != nil {
				t.Errorf("invoke %d: %v", i, err)
				return
			}
			var r tools.InvokeResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Error(err)
				return
			}
			if _, err := f.set.Dispatch(context.Background(), "get_from_working_memory", json.RawMessage(`{"key":"`+r.MemoryKey+`"}`)); !errors.Is(err, memory.ErrNotFound) {
				t.Errorf("get %d: %v, want not found", i, err)
			}
			if _, err := f.set.Dispatch(context.Background(), "list_known_agents", json.RawMessage(`{"skill":"`+fmt.Sprint("s", i)+`"}`)); err != nil {
				t.Errorf("list %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := len(f.inv.requests()); got != 8 {
		t.Fatalf("%d invocations, want 8", got)
	}
}
