// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

type invokeFlags struct {
	input, session, callerName, priority, contextID, task string
	timeout, directoryWait, waitTimeout                   time.Duration
	wait, asJSON, stream                                  bool
	callerContext                                         callerContextFlags // invoke_context.go
	answer                                                replyFlags         // --option, --message-id (with --task)
}

// newInvokeCmd builds `a2abus invoke AGENT SKILL TEXT`.
func newInvokeCmd(c *cli) *cobra.Command {
	var f invokeFlags
	cmd := &cobra.Command{
		Use:   "invoke AGENT SKILL TEXT",
		Short: "Invoke an agent's skill; print the task id and memory key, or wait for the result",
		Long: "Publishes a task to agent.task.AGENT and prints its task id, the memory key its result will be stored\n" +
			"under and its context id (--context ID continues the context of an earlier task: the agent gets its\n" +
			"earlier requests and answers). With --wait it shows status updates on stderr as they arrive — on a\n" +
			"terminal one live line with the elapsed time, and a note when the task waits in a queue no agent\n" +
			"consumes — and prints the result on stdout. Exit 0 when the task completed, 2 when it failed or timed\n" +
			"out (the error code is printed), 3 when the call was refused before publishing (AGENT_NOT_FOUND,\n" +
			"SKILL_NOT_SUPPORTED, INVALID_INPUT, FORBIDDEN, RATE_LIMITED, ...: no task exists), 4 when the agent asks\n" +
			"a question (the task waits for input: the question and its options are printed; answer with\n" +
			"a2abus reply TASK ANSWER, or invoke --task TASK ANSWER), 1 for any other failure.",
		Example: "  a2abus invoke SampleAgent echo hello --wait\n" +
			"  a2abus invoke SampleAgent npv 'NPV please' --input '{\"cash_flows\":[-100,60,60],\"discount_rate\":0.1}' --wait --json\n" +
			"  a2abus invoke ResearchAgent research 'how does KEDA scale jobs' --session s1   # then: a2abus wait TASK\n" +
			"  a2abus invoke SampleAgent confirm 'book the meeting room' --wait   # exit 4, then: a2abus reply TASK yes --wait\n" +
			"  a2abus invoke --task TASK yes --wait                                # the same as a2abus reply TASK yes --wait",
		Args: func(cmd *cobra.Command, args []string) error {
			if f.task != "" {
				return cobra.RangeArgs(0, 1)(cmd, args)
			}
			return cobra.ExactArgs(3)(cmd, args)
		},
		ValidArgsFunction: c.completeAgentSkill,
	}
	cmd.RunE = c.withConfig(func(ctx context.Context, e *env, args []string) error {
		if f.task != "" { // an answer: reply's flags, from invoke's
			if bad := changedFlags(cmd, "context", "session", "priority", "no-nested-calls", "stream", "directory-wait"); bad != "" {
				return &cliutil.UsageError{Err: fmt.Errorf("--%s does not apply to an answer (--task): the task keeps its own", bad)}
			}
			a := f.answer
			a.input, a.callerName, a.timeout, a.wait, a.asJSON = f.input, f.callerName, f.timeout, f.wait, f.asJSON
			if err := refuseBlankAnswer(args, a); err != nil {
				return err
			}
			return runReply(ctx, e, a, f.task, strings.Join(args, " "))
		}
		if bad := changedFlags(cmd, "option", "message-id"); bad != "" {
			return &cliutil.UsageError{Err: fmt.Errorf("--%s answers a question: give it with --task TASK", bad)}
		}
		if strings.TrimSpace(args[2]) == "" && f.input == "" {
			return blankArgument("invoke", "TEXT (the third argument)", "give the task's text, or its structured input with --input JSON")
		}
		f.directoryWait = directoryWaitFlag(cmd, f.directoryWait)
		f.callerContext.read(cmd.Flags())
		return runInvoke(ctx, e, f, args[0], args[1], args[2])
	})
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "structured input as JSON")
	fl.StringVar(&f.session, "session", "", "session id the result is notified into (default: a new one)")
	fl.StringVar(&f.callerName, "caller", "", "caller name; results come back on agent.response.<caller> (default caller.name)")
	fl.StringVar(&f.priority, "priority", "", "high, normal or low")
	fl.DurationVar(&f.timeout, "timeout", 0, "time allowed for the result (default caller.default_timeout, clamped to caller.max_timeout); with a wait bound, the time the task may run once an agent took it")
	fl.DurationVar(&f.waitTimeout, "wait-timeout", 0, "how long the task may wait in its queue for an agent to take it, apart from --timeout (default: the target's, directory.well_known_wait for a well-known agent, else caller.default_wait); past it EXPIRED_IN_QUEUE")
	fl.BoolVar(&f.wait, "wait", false, "wait for the result, showing status updates on stderr")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.StringVar(&f.contextID, "context", "", "the context id of an earlier task, to continue its context (default: a new one)")
	fl.StringVar(&f.task, "task", "", "answer the question of this task instead of invoking (as a2abus reply TASK ANSWER): invoke --task TASK ANSWER")
	addReplyFlags(cmd, &f.answer)
	fl.BoolVar(&f.stream, "stream", false, "ask the agent to send status updates (--wait always does): a later \"a2abus wait TASK\" shows those that arrive while it waits")
	fl.DurationVar(&f.directoryWait, "directory-wait", directory.DefaultVetWait,
		"how long an agent the directory does not know yet may take to announce itself before the call is refused (directory.vet_wait; 0: do not check the directory)")
	_ = cmd.RegisterFlagCompletionFunc("priority", cobra.FixedCompletions([]string{"high", "normal", "low"}, cobra.ShellCompDirectiveNoFileComp))
	addCallerContextFlags(cmd, &f.callerContext)
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
	req := caller.Request{Target: target, Skill: skill, Text: text, Input: input, SessionID: f.session, ContextID: f.contextID,
		Timeout: f.timeout, WaitTimeout: f.waitTimeout, Priority: prio, Stream: f.stream}
	if err := f.callerContext.apply(&req); err != nil {
		return err
	}
	cfg := e.Config
	if f.callerName != "" {
		cfg.Caller.Name = f.callerName
	}
	if cfg.Bus.Embedded() && !f.wait {
		fmt.Fprintln(e.Err, "a2abus: note: on the embedded bus the task lives only in this process; set bus.url (--amqp-url) to reach running agents")
	}
	oc, err := openCaller(ctx, e, f.directoryWait)
	if err != nil {
		return err
	}
	defer oc.closeAll()
	if !f.wait {
		inv, err := oc.cl.Invoke(ctx, req)
		if err != nil {
			return cliutil.Refused(err)
		}
		return printInvocation(e.Out, inv, f.asJSON)
	}
	if err := oc.run(); err != nil {
		return err
	}
	return awaitOutcome(e, f.asJSON, target+"."+skill, func(p *progress) (*caller.Outcome, error) {
		if qi, ok := oc.node.Bus.(queueInspector); ok {
			watchCtx, stop := context.WithCancel(ctx)
			watched := make(chan struct{})
			name := oc.canonical(target, skill)
			var waitUntil time.Time
			bounded := req
			bounded.Target = name
			if wait := oc.cl.WaitBound(bounded); wait > 0 {
				waitUntil = time.Now().Add(wait)
			}
			go func() { defer close(watched); watchQueue(watchCtx, qi, name, waitUntil, p) }()
			defer func() { stop(); <-watched }()
		}
		out, err := oc.cl.Call(ctx, req, p.print)
		return out, cliutil.Refused(err) // Call's errors come before its publish, or with ctx
	})
}

// awaitOutcome runs wait with its progress shown on stderr, prints the
// outcome and turns a failed task into exit code 2, a task that waits for
// input (its question printed) into exit code 4.
func awaitOutcome(e *env, asJSON bool, what string, wait func(*progress) (*caller.Outcome, error)) error {
	p := newProgress(e.Err, what)
	out, err := wait(p)
	p.close()
	if err != nil {
		return err
	}
	if err := printOutcome(e.Out, out, asJSON); err != nil {
		return err
	}
	if out.WaitingForInput() {
		return cliutil.InputRequired(fmt.Errorf("%w; answer with: a2abus reply %s ANSWER", out.Err(), out.TaskID))
	}
	if terr := out.Err(); terr != nil {
		return taskFailed(terr)
	}
	return nil
}

// openCallerNamed opens a caller named name (default caller.name) that
// vets no targets: for a task invoked earlier (wait, cancel).
func openCallerNamed(ctx context.Context, e *env, name string) (*caller.Caller, func(), error) {
	if name != "" {
		e.Config.Caller.Name = name
	}
	oc, err := openCaller(ctx, e, noVetting)
	if err != nil {
		return nil, nil, err
	}
	if err := oc.run(); err != nil {
		oc.closeAll()
		return nil, nil, err
	}
	return oc.cl, oc.closeAll, nil
}

// noVetting, as openCaller's directoryWait, builds a caller that publishes
// targets as given, with no directory.
const noVetting = -1

// directoryWaitFlag is the openCaller wait of a --directory-wait flag: the
// configuration's directory.vet_wait when not given, noVetting for 0.
func directoryWaitFlag(cmd *cobra.Command, value time.Duration) time.Duration {
	switch {
	case !cmd.Flags().Changed("directory-wait"):
		return 0
	case value <= 0:
		return noVetting
	}
	return value
}

// openedCaller is a caller, the host it runs on and the directory that vets
// its targets (nil when none does).
type openedCaller struct {
	cl    *caller.Caller
	host  *node.Host
	node  *node.Node
	dir   *directory.Directory
	added bool
}

// canonical is target as the directory spells it (the name of its task
// queue), target itself when no directory knows it.
func (oc *openedCaller) canonical(target, skill string) string {
	if oc.dir != nil {
		if name, err := oc.dir.Resolve(context.Background(), target, skill); err == nil {
			return name
		}
	}
	return target
}

// run runs the caller on the host (its responses are handled from now on):
// for a command that waits for an outcome. A command that only publishes
// does not run it, so it finalizes none of the caller's other tasks.
func (oc *openedCaller) run() error {
	if oc.added {
		return nil
	}
	oc.added = true
	return oc.host.Add(node.TierCallers, "caller "+oc.cl.Name(), oc.cl)
}

// closeAll stops the caller, then the directory, then closes the node.
func (oc *openedCaller) closeAll() {
	if !oc.added {
		_ = oc.cl.Close()
	}
	_ = oc.host.Close()
}

// openCaller assembles the configuration's caller (caller.name) on a host
// of its node, started at once. Unless directoryWait is noVetting, the
// host's directory vets every target, giving an agent not known yet
// directoryWait (0: directory.vet_wait) to answer its discovery query.
func openCaller(ctx context.Context, e *env, directoryWait time.Duration) (*openedCaller, error) {
	n, err := e.OpenNode(ctx, "a2abus-"+e.Config.Caller.Name)
	if err != nil {
		return nil, err
	}
	h := node.NewHost(n)
	h.SetVetWait(directoryWait)
	oc := &openedCaller{host: h, node: n}
	var resolver caller.Resolver
	if directoryWait != noVetting {
		r, err := h.Resolver()
		if err != nil {
			return nil, errors.Join(err, h.Close())
		}
		resolver, oc.dir = r, r.Directory
	}
	if oc.cl, err = n.Caller(e.Config.Caller.Name, resolver); err != nil {
		return nil, errors.Join(err, h.Close())
	}
	h.Start(ctx)
	return oc, nil
}

func printInvocation(w io.Writer, inv caller.Invocation, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{
			"taskId": inv.TaskID, "memoryKey": inv.MemoryKey, "sessionId": inv.SessionID, "contextId": inv.ContextID,
			"agent": inv.Target, "deadline": inv.Deadline, "status": "submitted",
		})
	}
	_, err := fmt.Fprintf(w, "task_id:    %s\nmemory_key: %s\nsession_id: %s\ncontext_id: %s\n", inv.TaskID, inv.MemoryKey, inv.SessionID, inv.ContextID)
	return err
}

// printOutcome prints the end of a task's turn: its outcome, or the
// question it waits on. JSON: taskId, memoryKey, sessionId, contextId,
// turn and the stored result; with a question also waitingForInput,
// question and answerBy.
func printOutcome(w io.Writer, out *caller.Outcome, asJSON bool) error {
	r := out.Result
	if asJSON {
		v := map[string]any{"taskId": out.TaskID, "memoryKey": out.MemoryKey, "sessionId": out.SessionID,
			"contextId": cmp.Or(out.ContextID, r.ContextID), "turn": out.Turn, "result": r}
		if out.WaitingForInput() {
			v["waitingForInput"], v["question"], v["answerBy"] = true, r.Question, r.AnswerBy
		}
		return json.NewEncoder(w).Encode(v)
	}
	var b strings.Builder
	// A failed task's error is not printed here: the command returns it
	// (exit 2) and it is printed once, on stderr, as every error is.
	if out.WaitingForInput() {
		printQuestion(&b, out)
	} else if t := a2a.MessageText(r.Message); t != "" && r.Error == nil {
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
	_, err := io.WriteString(w, cliutil.Printable(b.String())) // the agent's text must not drive the terminal
	return err
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
		Long: "Handles the caller's responses (as one more replica of it) until TASK's outcome is stored, or the\n" +
			"question it waits on, then prints it like invoke --wait: exit 0 when completed, 2 when it failed or timed\n" +
			"out, 4 when its agent asks a question (the task waits for input; answer with a2abus reply TASK ANSWER).",
		Example: "  a2abus wait 0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f\n" +
			"  a2abus wait \"$(a2abus invoke SampleAgent sleep 3000 --json | jq -r .taskId)\" --json",
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
			return awaitOutcome(e, asJSON, "task "+args[0], func(p *progress) (*caller.Outcome, error) {
				return cl.Wait(ctx, args[0], p.print)
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
		Use:     "cancel TASK",
		Short:   "Cancel a task invoked earlier: its handler's context is cancelled and it ends CANCELED",
		Example: "  a2abus cancel 0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f\n  a2abus cancel TASK --caller Planner",
		Args:    cobra.ExactArgs(1),
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

// changedFlags returns the first of names given on cmd's command line, "" when none is.
func changedFlags(cmd *cobra.Command, names ...string) string {
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed {
			return n
		}
	}
	return ""
}
