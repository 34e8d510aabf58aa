package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/backends"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// exitTaskFailed is the exit code of `invoke --wait` when the task failed or timed out.
const exitTaskFailed = 2

type invokeFlags struct {
	input, session, callerName, priority string
	timeout, directoryWait               time.Duration
	wait, asJSON, noNestedCalls, stream  bool
}

// newInvokeCmd builds `a2abus invoke AGENT SKILL TEXT`.
func newInvokeCmd(c *cli) *cobra.Command {
	var f invokeFlags
	cmd := &cobra.Command{
		Use:   "invoke AGENT SKILL TEXT",
		Short: "Invoke an agent's skill; print the task id and memory key, or wait for the result",
		Long: "Publishes a task to agent.task.AGENT and prints its task id and the memory key its result will be\n" +
			"stored under. With --wait it shows status updates on stderr as they arrive and prints the result on\n" +
			"stdout: exit 0 when the task completed, 2 when it failed or timed out (the error code is printed).",
		Args: cobra.ExactArgs(3),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			return runInvoke(ctx, e, f, args[0], args[1], args[2])
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "structured input as JSON")
	fl.StringVar(&f.session, "session", "", "session id the result is notified into (default: a new one)")
	fl.StringVar(&f.callerName, "caller", "", "caller name; results come back on agent.response.<caller> (default caller.name)")
	fl.StringVar(&f.priority, "priority", "", "high, normal or low")
	fl.DurationVar(&f.timeout, "timeout", 0, "time allowed for the result (default caller.default_timeout, clamped to caller.max_timeout)")
	fl.BoolVar(&f.wait, "wait", false, "wait for the result, showing status updates on stderr")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.BoolVar(&f.noNestedCalls, "no-nested-calls", false, "forbid the agent to call other agents for this task (they are refused with FORBIDDEN)")
	fl.BoolVar(&f.stream, "stream", false, "ask the agent for status updates without --wait, for a later `a2abus wait TASK` (--wait always asks)")
	fl.DurationVar(&f.directoryWait, "directory-wait", time.Second,
		"how long an agent the directory does not know yet may take to announce itself before the call is refused (0: do not check the directory)")
	return cmd
}

func runInvoke(ctx context.Context, e *env, f invokeFlags, target, skill, text string) error {
	var input json.RawMessage
	if f.input != "" {
		if !json.Valid([]byte(f.input)) {
			return fmt.Errorf("--input: not valid JSON: %q", f.input)
		}
		input = json.RawMessage(f.input)
	}
	prio, err := a2a.ParsePriority(f.priority)
	if err != nil {
		return fmt.Errorf("--priority: %w", err)
	}
	cfg := e.Config
	if f.callerName != "" {
		cfg.Caller.Name = f.callerName
	}
	if cfg.Bus.Embedded() && !f.wait {
		fmt.Fprintln(e.Err, "a2abus: note: on the embedded bus the task lives only in this process; set bus.url (--amqp-url) to reach running agents")
	}
	cl, closeAll, err := openCaller(ctx, e, f.directoryWait)
	if err != nil {
		return err
	}
	defer closeAll()
	req := caller.Request{Target: target, Skill: skill, Text: text, Input: input, SessionID: f.session, Timeout: f.timeout, Priority: prio, Stream: f.stream}
	if f.noNestedCalls {
		req.AllowNestedCalls = new(false)
	}
	if !f.wait {
		inv, err := cl.Invoke(ctx, req)
		if err != nil {
			return err
		}
		return printInvocation(e.Out, inv, f.asJSON)
	}
	go func() { _ = cl.Run(ctx) }()
	return awaitOutcome(e, f.asJSON, func(onStatus caller.StatusFunc) (*caller.Outcome, error) {
		return cl.Call(ctx, req, onStatus)
	})
}

// awaitOutcome runs wait with status updates shown on stderr, prints the
// outcome and turns a failed task into exit code 2.
func awaitOutcome(e *env, asJSON bool, wait func(caller.StatusFunc) (*caller.Outcome, error)) error {
	progress := newStatusPrinter(e.Err)
	out, err := wait(progress.print)
	progress.done()
	if err != nil {
		return err
	}
	if err := printOutcome(e.Out, out, asJSON); err != nil {
		return err
	}
	if terr := out.Err(); terr != nil {
		return &exitError{code: exitTaskFailed, err: terr}
	}
	return nil
}

// openCallerNamed opens a caller named name (default caller.name) that
// vets no targets: for a task invoked earlier (wait, cancel).
func openCallerNamed(ctx context.Context, e *env, name string) (*caller.Caller, func(), error) {
	if name != "" {
		e.Config.Caller.Name = name
	}
	return openCaller(ctx, e, 0)
}

// openCaller opens the configured backends and a caller on them; closeAll
// closes the caller, then the bus and memory. With directoryWait > 0 a
// directory runs beside the caller and vets every target, giving agents not
// known yet that long to answer its discovery query.
func openCaller(ctx context.Context, e *env, directoryWait time.Duration) (*caller.Caller, func(), error) {
	cfg := e.Config
	b, err := backends.Bus(ctx, cfg.Bus, "a2abus-"+cfg.Caller.Name, e.Log)
	if err != nil {
		return nil, nil, err
	}
	m, err := backends.Memory(ctx, cfg.Redis, e.Log)
	if err != nil {
		_ = b.Close()
		return nil, nil, err
	}
	g, err := backends.Guard(cfg, e.Log) // policy and limits of this caller's calls
	if err != nil {
		_ = backends.CloseAll(b, m)
		return nil, nil, err
	}
	var resolver caller.Resolver
	stopDirectory := func() {}
	if directoryWait > 0 {
		d, err := backends.VettingDirectory(cfg, b, e.Log)
		if err != nil {
			_ = backends.CloseAll(b, m)
			return nil, nil, err
		}
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = d.Run(dctx) }()
		stopDirectory = func() { cancel(); <-done }
		resolver = directory.PatientResolver{Ctx: ctx, Directory: d, Wait: directoryWait}
	}
	cl, err := caller.New(caller.Options{
		Name: cfg.Caller.Name, Bus: b, Memory: m, Resolver: resolver, Guard: g, ResultTTL: cfg.Memory.ResultTTL,
		DefaultTimeout: cfg.Caller.DefaultTimeout, MaxTimeout: cfg.Caller.MaxTimeout, SweepInterval: cfg.Caller.SweepInterval, MaxDepth: cfg.Caller.MaxDepth,
		Codec: a2a.Codec{MaxBodyBytes: cfg.Bus.MaxMessageBytes}, Logger: e.Log,
	})
	if err != nil {
		stopDirectory()
		_ = backends.CloseAll(b, m)
		return nil, nil, err
	}
	return cl, func() { _ = backends.CloseAll(cl); stopDirectory(); _ = backends.CloseAll(b, m) }, nil
}

func printInvocation(w io.Writer, inv caller.Invocation, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{
			"task_id": inv.TaskID, "memory_key": inv.MemoryKey, "session_id": inv.SessionID,
			"agent": inv.Target, "deadline": inv.Deadline, "status": "submitted",
		})
	}
	_, err := fmt.Fprintf(w, "task_id:    %s\nmemory_key: %s\nsession_id: %s\n", inv.TaskID, inv.MemoryKey, inv.SessionID)
	return err
}

func printOutcome(w io.Writer, out *caller.Outcome, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{
			"task_id": out.TaskID, "memory_key": out.MemoryKey, "session_id": out.SessionID, "result": out.Result,
		})
	}
	r := out.Result
	var b strings.Builder
	if r.Error != nil {
		fmt.Fprintf(&b, "%s: %s\n", r.Error.Code, r.Error.Message)
	} else if t := a2a.MessageText(r.Message); t != "" {
		fmt.Fprintln(&b, t)
	}
	for _, a := range r.Artifacts {
		if a == nil {
			continue
		}
		fmt.Fprintf(&b, "--- artifact %s", a.ID)
		if a.Name != "" {
			fmt.Fprintf(&b, " (%s)", a.Name)
		}
		b.WriteString("\n")
		for _, p := range a.Parts {
			if p == nil {
				continue
			}
			if t := p.Text(); t != "" {
				fmt.Fprintln(&b, t)
			} else if d := p.Data(); d != nil {
				j, _ := json.Marshal(d)
				fmt.Fprintln(&b, string(j))
			}
		}
	}
	fmt.Fprintf(&b, "(state=%s, memory key %s)\n", strings.ToLower(strings.TrimPrefix(string(r.State), "TASK_STATE_")), out.MemoryKey)
	_, err := io.WriteString(w, b.String())
	return err
}

// statusPrinter shows status updates: one rewritten line with a spinner on a
// terminal, plain lines otherwise.
type statusPrinter struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	frame    int
	shown    bool
}

func newStatusPrinter(w io.Writer) *statusPrinter {
	p := &statusPrinter{w: w}
	if f, ok := w.(*os.File); ok {
		st, err := f.Stat()
		p.terminal = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return p
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *statusPrinter) print(st *a2a.TaskStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("%s %s", st.Agent, strings.ToLower(strings.TrimPrefix(string(st.State), "TASK_STATE_")))
	if st.Progress != nil {
		line += fmt.Sprintf(" %3.0f%%", *st.Progress*100)
	}
	if t := a2a.MessageText(st.Message); t != "" {
		line += ": " + t
	}
	if p.terminal {
		p.frame++
		fmt.Fprintf(p.w, "\r\033[K%s %s", spinner[p.frame%len(spinner)], line)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "status: %s\n", line)
}

// done ends the spinner line.
func (p *statusPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// newWaitCmd builds `a2abus wait TASK`: wait for a task invoked earlier (by
// this caller name, from any process) and print its outcome like invoke --wait.
func newWaitCmd(c *cli) *cobra.Command {
	var callerName string
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait TASK",
		Short: "Wait for the outcome of a task invoked earlier and print it",
		Long: "Handles the caller's responses (as one more replica of it) until TASK's outcome is stored, then\n" +
			"prints it like invoke --wait: exit 0 when completed, 2 when it failed or timed out.",
		Args: cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			cl, closeAll, err := openCallerNamed(ctx, e, callerName)
			if err != nil {
				return err
			}
			defer closeAll()
			go func() { _ = cl.Run(ctx) }()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			return awaitOutcome(e, asJSON, func(onStatus caller.StatusFunc) (*caller.Outcome, error) {
				return cl.Wait(ctx, args[0], onStatus)
			})
		}),
	}
	cmd.Flags().StringVar(&callerName, "caller", "", "the caller name the task was invoked with (default caller.name)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up waiting after this long (default: until the task's deadline passes)")
	return cmd
}

// newCancelCmd builds `a2abus cancel TASK`: ask the instance running a task
// invoked earlier (by this caller name) to cancel it.
func newCancelCmd(c *cli) *cobra.Command {
	var callerName string
	cmd := &cobra.Command{
		Use:   "cancel TASK",
		Short: "Cancel a task invoked earlier: its handler's context is cancelled and it ends CANCELED",
		Args:  cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			cl, closeAll, err := openCallerNamed(ctx, e, callerName)
			if err != nil {
				return err
			}
			defer closeAll()
			if err := cl.Cancel(ctx, args[0]); err != nil {
				if errors.Is(err, bus.ErrUnroutable) {
					return fmt.Errorf("cancel %s: no instance of its agent is running to receive it: %w", args[0], err)
				}
				return err
			}
			_, err = fmt.Fprintf(e.Out, "cancel of task %s sent\n", args[0])
			return err
		}),
	}
	cmd.Flags().StringVar(&callerName, "caller", "", "the caller name the task was invoked with (default caller.name)")
	return cmd
}
