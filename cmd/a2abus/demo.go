// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	projectdocs "github.com/a2abus/a2abus/docs"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// newDemoCmd builds `a2abus demo`, the main job: both reference agents and a
// caller in one process, on the embedded bus and memory unless --amqp-url /
// --redis-url point at real servers.
func newDemoCmd(c *cli) *cobra.Command {
	var o demoConsole
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run SampleAgent and ResearchAgent in this process, invoke them and show every step",
		Long: "Starts SampleAgent and ResearchAgent and a caller in one process, invokes them, and shows the\n" +
			"status stream, the memory key each result is stored under, the notification turn injected into\n" +
			"the conversation and the result fetched back, as an LLM would with get_from_working_memory; then an\n" +
			"agent's question answered (the task waits for input) and a follow-up task in the same context.\n" +
			"Runs on the embedded bus and memory (no servers needed); with --amqp-url and --redis-url the\n" +
			"same demo runs on RabbitMQ and Redis. With --console it also serves the web console of its mesh\n" +
			"(read-only, on loopback), prints its URL first and keeps it open after the demo until Ctrl-C.",
		Example: "  a2abus demo\n" +
			"  a2abus demo --console\n" +
			"  a2abus demo --amqp-url amqp://guest:guest@127.0.0.1:5672/ --redis-url redis://127.0.0.1:6379/0",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error { return runDemo(ctx, e, o) }),
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "console", "", "also serve the web console of the demo's mesh on this loopback host:port (--console alone: a free port)")
	f.Lookup("console").NoOptDefVal = "127.0.0.1:0"
	f.DurationVar(&o.linger, "console-linger", 0, "with --console, how long the console stays open after the demo (0: until Ctrl-C)")
	return cliutil.SetProfile(cmd, cliutil.Demo)
}

// demoPolicy is what the demo calls, and all it enables (policy.default is
// deny): its caller calls the reference agents and the Orchestrator (SampleAgent
// delegates through the same caller), and the Orchestrator's workflow and
// routing call the reference agents.
var demoPolicy = []config.PolicyRule{
	{Caller: "DemoCaller", Allow: []string{"SampleAgent", "ResearchAgent", agents.KindOrchestrator}},
	{Caller: agents.KindOrchestrator, Allow: []string{"SampleAgent", "ResearchAgent"}},
}

// withRules adds to rules those of more whose caller no rule names yet.
func withRules(rules []config.PolicyRule, more ...config.PolicyRule) []config.PolicyRule {
	out := slices.Clone(rules)
	for _, r := range more {
		if !slices.ContainsFunc(out, func(o config.PolicyRule) bool { return strings.EqualFold(o.Caller, r.Caller) }) {
			out = append(out, r)
		}
	}
	return out
}

// demoConsole is the demo's console: where it listens ("" for none) and
// how long it stays open after the demo.
type demoConsole struct {
	listen string
	linger time.Duration
}

func runDemo(ctx context.Context, e *env, con demoConsole) (err error) {
	cfg := e.Config
	cfg.Policy.Rules = withRules(cfg.Policy.Rules, demoPolicy...)
	n, err := e.OpenNode(ctx, "a2abus-demo")
	if err != nil {
		return err
	}
	d := &demo{out: e.Out, mem: n.Memory}
	where := "embedded in-process bus and memory (no servers)"
	if !cfg.Bus.Embedded() || !cfg.Redis.Embedded() {
		where = fmt.Sprintf("bus %s, memory %s", describe(cfg.Bus.Embedded(), "RabbitMQ"), describe(cfg.Redis.Embedded(), "Redis"))
	}
	d.printf("a2abus demo on the %s\n", where)
	d.printf("Policy (policy.default %s; the demo adds the rules of what it calls):\n", cfg.Policy.Default)
	for _, line := range node.Policy(cfg).Allowed() {
		d.printf("  %s\n", line)
	}
	d.printf("\n")

	// Everything is assembled as `a2abus serve` and `a2abus invoke` assemble
	// it, on one host: the configured guard, limits, timeouts and announce
	// secret apply, and the parts stop in the host's order.
	h := node.NewHost(n)
	defer func() { err = errors.Join(err, h.Close()) }()
	// The demo's caller publishes targets as given, so that the agents'
	// own checks (the input schema) show in the demo.
	demoCaller, err := n.Caller("DemoCaller", nil)
	if err != nil {
		return err
	}
	if err := h.Add(node.TierCallers, "caller DemoCaller", demoCaller); err != nil {
		return err
	}
	if err := newDemoAgent(h, sample.Card("SampleAgent"), func(a *agent.Agent) error { return sample.Register(a, demoCaller) }); err != nil {
		return err
	}
	// ResearchAgent searches the project's docs built into the binary, so
	// the demo runs from any folder; research.docs_dir, when set, wins.
	docs := research.Embedded(projectdocs.Pages, "the a2abus docs (built in)")
	if e.Sources.IsSet("research.docs_dir") {
		docs = research.Folder(cfg.Research.DocsDir)
	}
	if err := newDemoAgent(h, research.Card(), func(a *agent.Agent) error { return research.RegisterDocs(a, docs, research.Model{}) }); err != nil {
		return err
	}
	dir, err := h.Directory(node.Lister)
	if err != nil {
		return err
	}
	if con.listen != "" { // the console of this mesh, which the demo's caller's tasks show in live
		if _, err := buildConsole(h, e, consoleFlags{listen: con.listen, callers: []string{"DemoCaller"}}); err != nil {
			return err
		}
	}
	h.Start(ctx)
	runCtx := ctx

	session := "demo-" + uuid.NewString()[:8]
	toolSet, err := tools.New(tools.Deps{Caller: demoCaller, Agents: tools.DirectoryLister{Directory: dir}, Resolver: dir, Memory: n.Memory, SessionID: session})
	if err != nil {
		return err
	}
	d.tools = toolSet
	if err := d.listAgents(runCtx, dir); err != nil {
		return err
	}
	steps := []struct {
		title string
		req   caller.Request
	}{
		{"SampleAgent.echo", caller.Request{Target: "SampleAgent", Skill: "echo", Text: "Hello from a2abus"}},
		{"SampleAgent.npv", caller.Request{Target: "SampleAgent", Skill: "npv", Text: "NPV of a small project",
			Input: json.RawMessage(`{"cash_flows":[-100000,25000,35000,45000,55000],"discount_rate":0.12}`)}},
		{"ResearchAgent.research", caller.Request{Target: "ResearchAgent", Skill: "research", Text: "how is a task result stored in working memory"}},
		{"SampleAgent.sleep past its deadline", caller.Request{Target: "SampleAgent", Skill: "sleep", Text: "2000", Timeout: 500 * time.Millisecond}},
		{"SampleAgent.npv with input its schema refuses", caller.Request{Target: "SampleAgent", Skill: "npv", Text: "a bad rate",
			Input: json.RawMessage(`{"cash_flows":[-100,60,60],"discount_rate":"12%"}`)}},
	}
	for i, st := range steps {
		st.req.SessionID = session
		if err := d.step(runCtx, demoCaller, i+1, st.title, st.req); err != nil {
			return err
		}
	}
	if err := d.askAndFollowUp(runCtx, demoCaller, len(steps)+1, session); err != nil {
		return err
	}
	turns, err := n.Memory.Turns(runCtx, session, 0, 0)
	if err != nil {
		return err
	}
	d.printf("The conversation of session %s now holds %d notification turns:\n", session, len(turns))
	for _, t := range turns {
		d.printf("  #%d [%s] %s\n", t.Seq, t.Role, t.Content)
	}
	history, err := caller.History(runCtx, n.Memory, session)
	if err != nil {
		return err
	}
	d.printf("\nIts call history (a2abus history %s):\n", session)
	if d.err == nil {
		d.err = printHistory(d.out, history, false)
	}
	if d.err == nil { // the shipped business-case workflow through the Orchestrator (docs/workflows.md)
		d.err = demoWorkflow(runCtx, h, demoCaller, d.out)
	}
	if d.err == nil && con.listen != "" {
		d.err = lingerConsole(ctx, d, con.linger, session)
	}
	return d.err
}

// lingerConsole keeps the demo's console open after the demo: for linger,
// or until ctx ends (Ctrl-C) when linger is 0.
func lingerConsole(ctx context.Context, d *demo, linger time.Duration, session string) error {
	if linger > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, linger)
		defer cancel()
		d.printf("\nThe console stays open for %s (its session: /sessions/%s).\n", linger, session)
	} else {
		d.printf("\nThe console stays open until Ctrl-C (its session: /sessions/%s).\n", session)
	}
	<-ctx.Done()
	return d.err
}

func describe(embedded bool, real string) string {
	if embedded {
		return "embedded"
	}
	return real
}

// newDemoAgent assembles the agent of card on h and registers its skills.
func newDemoAgent(h *node.Host, card a2a.AgentCard, register func(*agent.Agent) error) error {
	_, err := h.Agent(card, register)
	return err
}

// demo prints the steps; the first write error is kept and returned.
type demo struct {
	out   io.Writer
	mem   memory.Memory
	tools *tools.Set
	err   error
}

// listAgents waits for both agents to announce themselves, then shows what
// the list_known_agents tool gives an LLM.
func (d *demo) listAgents(ctx context.Context, dir *directory.Directory) error {
	deadline := time.After(5 * time.Second)
	for {
		online := 0
		for _, e := range dir.List(directory.Filter{}) {
			if e.Status == directory.StatusOnline {
				online++
			}
		}
		if online >= 2 {
			break
		}
		select {
		case <-dir.Changes():
		case <-deadline:
			return errors.New("demo: the agents did not announce themselves within 5s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	raw, err := d.tools.Dispatch(ctx, "list_known_agents", json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	var list tools.AgentList
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	d.printf("0. list_known_agents() — what the directory tells an LLM:\n")
	for _, a := range list.Agents {
		var skills []string
		for _, s := range a.Skills {
			skills = append(skills, s.ID)
		}
		d.printf("   %-14s %-10s instances=%d skills=%s\n", a.Name, a.Status, a.Instances, strings.Join(skills, ","))
	}
	d.printf("\n")
	return nil
}

func (d *demo) printf(format string, args ...any) {
	if d.err == nil {
		_, d.err = io.WriteString(d.out, cliutil.Printable(fmt.Sprintf(format, args...))) // the agents' and the model's text
	}
}

// step invokes one skill and shows its statuses, key, notification and fetched result.
func (d *demo) step(ctx context.Context, c *caller.Caller, n int, title string, req caller.Request) error {
	d.printf("%d. invoke %s %q\n", n, title, req.Text)
	out, err := c.Call(ctx, req, func(st *a2a.TaskStatus) {
		line := "working"
		if st.Progress != nil {
			line += fmt.Sprintf(" %3.0f%%", *st.Progress*100)
		}
		if t := a2a.MessageText(st.Message); t != "" {
			line += ": " + t
		}
		d.printf("   status  %s\n", line)
	})
	if err != nil {
		return fmt.Errorf("demo step %d (%s): %w", n, title, err)
	}
	state := strings.ToLower(strings.TrimPrefix(string(out.Result.State), "TASK_STATE_"))
	d.printf("   task    %s -> %s\n", out.TaskID, state)
	d.printf("   stored  %s\n", out.MemoryKey)
	turns, err := d.mem.Turns(ctx, out.SessionID, 0, 0)
	if err != nil {
		return err
	}
	for _, t := range turns {
		if memory.MetaValue(t.Meta, caller.MetaTaskID) == out.TaskID {
			d.printf("   notify  %s\n", t.Content)
		}
	}
	args, _ := json.Marshal(map[string]string{"key": out.MemoryKey})
	raw, err := d.tools.Dispatch(ctx, "get_from_working_memory", args)
	if err != nil {
		return fmt.Errorf("demo step %d: %w", n, err)
	}
	d.printf("   fetched get_from_working_memory(%q): %d bytes; %s\n\n", out.MemoryKey, len(raw), summary(out.Result))
	return nil
}

// summary is a one-line view of a stored result.
func summary(r *caller.StoredResult) string {
	if r.Error != nil {
		return fmt.Sprintf("error %s: %s", r.Error.Code, r.Error.Message)
	}
	s := fmt.Sprintf("message %q", truncate(r.Text(), 120))
	for _, a := range r.Artifacts {
		if a == nil {
			continue
		}
		for _, p := range a.Parts {
			if p == nil {
				continue
			}
			if data := p.Data(); data != nil {
				j, _ := json.Marshal(data)
				s += fmt.Sprintf(", data %s", truncate(string(j), 120))
			}
		}
	}
	if len(r.Artifacts) > 0 {
		s += fmt.Sprintf(", %d artifact(s)", len(r.Artifacts))
	}
	return s
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
