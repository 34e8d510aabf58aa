// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// exitPartial is the exit code of a workflow run whose outcome is PARTIAL:
// every required step succeeded, but something optional failed or timed
// out. It differs from 0 so that scripts notice, from 2 (ERROR) and from 3
// (refused before publishing, as for every command).
const exitPartial = 4

// newWorkflowCmd builds `a2abus workflow run|show`.
func newWorkflowCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workflow",
		Example: "  a2abus workflow run workflows/business-case.yaml --input '{\"discount_rate\":0.1}'\n  a2abus workflow show RUN_ID",
		Short:   "Run multi-agent workflows and show their runs",
		Long: "A workflow is a YAML file of steps (agent, skill, templated text and input, timeout, retries,\n" +
			"optional) run in sequence and in parallel groups; see docs/workflows.md.",
	}
	cmd.AddCommand(newWorkflowRunCmd(c), newWorkflowShowCmd(c))
	return cmd
}

type workflowRunFlags struct {
	input, request, session, user, orchestrator, runID string
	timeout                                            time.Duration
	wait, asJSON                                       bool
}

func newWorkflowRunCmd(c *cli) *cobra.Command {
	var f workflowRunFlags
	cmd := &cobra.Command{
		Use: "run FILE|NAME",
		Example: "  a2abus workflow run workflows/business-case.yaml --input '{}' --request \"Help me build a business case\"\n" +
			"  a2abus workflow run business-case --input '{\"discount_rate\":0.1}' --wait --json",
		Short: "Run a workflow: a YAML file in this process, or a workflow of the Orchestrator agent by name",
		Long: "FILE (a path to a .yaml/.yml file) runs here, through caller.name, and is always waited for; the run id\n" +
			"is printed on stderr first, so `a2abus workflow show RUN` follows it from elsewhere, and --run resumes an\n" +
			"interrupted run of FILE (a run of another workflow, or of another version of FILE, is refused).\n" +
			"A workflow of more than workflow.max_steps steps is refused. NAME invokes that skill of the Orchestrator\n" +
			"agent (a2abus serve --agent Orchestrator):\n" +
			"without --wait it prints the task id (= the run id); with --wait it prints the report.\n" +
			"Exit codes of a finished run: 0 SUCCESS, 4 PARTIAL (optional steps failed; warnings printed), 2 ERROR.",
		Args: cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			return runWorkflowCmd(ctx, e, f, args[0])
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", "the workflow's input, a JSON object (default {})")
	fl.StringVar(&f.request, "request", "", "the original request, in the user's words (${request} in templates)")
	fl.StringVar(&f.session, "session", "", "the user's session id, passed to every step in the handoff context")
	fl.StringVar(&f.user, "user", "", "the user id, passed to every step in the handoff context")
	fl.StringVar(&f.orchestrator, "orchestrator", agents.KindOrchestrator, "NAME: the Orchestrator agent to ask")
	fl.StringVar(&f.runID, "run", "", "FILE: the run id (default a new one); the run of that id, if any, is resumed (it must be a run of FILE)")
	fl.DurationVar(&f.timeout, "timeout", 0, "NAME: time allowed for the whole run (default caller.default_timeout, clamped to caller.max_timeout)")
	fl.BoolVar(&f.wait, "wait", false, "NAME: wait for the run's report (a FILE is always waited for)")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	return cmd
}

func runWorkflowCmd(ctx context.Context, e *env, f workflowRunFlags, target string) error {
	var input json.RawMessage
	if f.input != "" {
		if !json.Valid([]byte(f.input)) || !strings.HasPrefix(strings.TrimSpace(f.input), "{") {
			return fmt.Errorf("--input: not a JSON object: %q", f.input)
		}
		input = json.RawMessage(f.input)
	}
	if isWorkflowFile(target) {
		if f.runID != "" {
			if err := workflow.ValidateRunID(f.runID); err != nil {
				return fmt.Errorf("--run: %w", err)
			}
		}
		wf, err := workflow.Loader{MaxSteps: e.Config.Workflow.MaxSteps}.Load(target)
		if err != nil {
			return err
		}
		return runWorkflowFile(ctx, e, f, wf, input)
	}
	if err := a2a.ValidateSkillID(target); err != nil {
		return fmt.Errorf("%q is neither a workflow file (.yaml) nor a workflow name: %w", target, err)
	}
	return runWorkflowByName(ctx, e, f, target, input)
}

// isWorkflowFile reports whether arg names a file rather than a workflow.
func isWorkflowFile(arg string) bool {
	if strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, os.PathSeparator) {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && !st.IsDir()
}

// runWorkflowFile runs wf in this process through the configuration's caller.
func runWorkflowFile(ctx context.Context, e *env, f workflowRunFlags, wf *workflow.Workflow, input json.RawMessage) error {
	if e.Config.Bus.Embedded() {
		fmt.Fprintln(e.Err, "a2abus: note: on the embedded bus only agents in this process are reachable; set bus.url (--amqp-url) to reach running agents")
	}
	oc, err := openCaller(ctx, e, 0)
	if err != nil {
		return err
	}
	defer oc.closeAll()
	if err := oc.run(); err != nil {
		return err
	}
	cl, n := oc.cl, oc.node
	eng, err := workflow.New(workflow.Options{Caller: cl, Memory: n.Memory, Logger: e.Log, MaxSteps: e.Config.Workflow.MaxSteps,
		MaxRenderBytes: e.Config.Workflow.MaxRenderBytes, MemoryRetryBound: e.Config.Memory.RetryBound})
	if err != nil {
		return err
	}
	runID := f.runID
	if runID == "" {
		runID = uuid.NewString()
	}
	rep, err := eng.Execute(ctx, wf, workflow.RunOptions{RunID: runID, Input: input, Request: f.request, SessionID: f.session, UserID: f.user,
		OnStart: func(id string, resumed bool) { // claimed, and of this workflow when resumed
			what := "run"
			if resumed {
				what = "resuming run"
			}
			fmt.Fprintf(e.Err, "%s %s (a2abus workflow show %s)\n", what, id, id)
		},
		OnEvent: func(ev workflow.Event) {
			if ev.Phase.Final() {
				fmt.Fprintf(e.Err, "  step %d of %d %s: %s\n", ev.Index, ev.Count, ev.Step.ID, ev.Phase)
			}
		}})
	if err != nil {
		return err
	}
	return printReport(e, rep, f.asJSON)
}

// runWorkflowByName asks the Orchestrator agent to run workflow name.
func runWorkflowByName(ctx context.Context, e *env, f workflowRunFlags, name string, input json.RawMessage) error {
	oc, err := openCaller(ctx, e, 0)
	if err != nil {
		return err
	}
	defer oc.closeAll()
	cl := oc.cl
	req := caller.Request{Target: f.orchestrator, Skill: name, Text: f.request, Input: input, Timeout: f.timeout}
	if req.Text == "" && len(req.Input) == 0 {
		req.Input = json.RawMessage(`{}`)
	}
	if f.session != "" || f.user != "" {
		h, _ := json.Marshal(map[string]string{"sessionId": f.session, "userId": f.user})
		req.Handoff = h
	}
	if !f.wait {
		inv, err := cl.Invoke(ctx, req)
		if err != nil {
			return cliutil.Refused(err)
		}
		if f.asJSON {
			return json.NewEncoder(e.Out).Encode(runSubmitted(inv))
		}
		_, err = fmt.Fprintf(e.Out, "task_id:    %s\nrun_id:     %s\nmemory_key: %s\n(a2abus wait %s; a2abus workflow show %s)\n", inv.TaskID, inv.TaskID, inv.MemoryKey, inv.TaskID, inv.TaskID)
		return err
	}
	if err := oc.run(); err != nil {
		return err
	}
	progress := newProgress(e.Err, "workflow "+name)
	out, err := cl.Call(ctx, req, progress.print)
	progress.close()
	if err != nil {
		return cliutil.Refused(err) // Call's errors come before its publish, or with ctx
	}
	if rep, ok := workflow.ReportFrom(out.Result.Artifacts); ok {
		return printReport(e, rep, f.asJSON)
	}
	// An ERROR run fails the task with the failed step's error; its report
	// is in working memory, under the run id (the task id).
	if out.Err() != nil {
		if rep, err := workflow.Show(ctx, oc.node.Memory, out.TaskID); err == nil && rep.Status == workflow.StatusError {
			return printReport(e, rep, f.asJSON)
		}
	}
	// No report: the Orchestrator refused the task (unknown workflow, bad input …) or it timed out.
	if err := printOutcome(e.Out, out, f.asJSON); err != nil {
		return err
	}
	if terr := out.Err(); terr != nil {
		return taskFailed(terr)
	}
	return taskFailed(errors.New("the result carries no workflow report"))
}

// runSubmitted is what workflow run --json prints for a run it did not wait for.
func runSubmitted(inv caller.Invocation) map[string]any {
	return map[string]any{"taskId": inv.TaskID, "runId": inv.TaskID, "memoryKey": inv.MemoryKey, "status": "submitted"}
}

// printReport prints rep and sets the exit code of its status.
func printReport(e *env, rep *workflow.Report, asJSON bool) error {
	var err error
	if asJSON {
		err = json.NewEncoder(e.Out).Encode(rep)
	} else {
		_, err = io.WriteString(e.Out, cliutil.Printable(rep.Text()))
	}
	if err != nil {
		return err
	}
	switch rep.Status {
	case workflow.StatusSuccess, workflow.StatusRunning:
		return nil
	case workflow.StatusPartial:
		return &cliutil.ExitError{Code: exitPartial, Reported: true, Err: fmt.Errorf("workflow %s run %s: PARTIAL: %s", rep.Workflow, rep.RunID, strings.Join(rep.Warnings, "; "))}
	}
	return taskFailed(fmt.Errorf("workflow %s run %s: ERROR at %s: %s", rep.Workflow, rep.RunID, rep.FailedStep, rep.Error))
}

func newWorkflowShowCmd(c *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show RUN",
		Example: "  a2abus workflow show 5c5e82ea-2fa2-45b3-ba0b-3035b0442e66 --json",
		Short:   "Print a workflow run's steps with their state, attempts, timing and outcome",
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			if err := workflow.ValidateRunID(args[0]); err != nil {
				return err
			}
			mem, err := node.Memory(ctx, e.Config, e.Log)
			if err != nil {
				return err
			}
			defer mem.Close()
			rep, err := workflow.Show(ctx, mem, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(e.Out).Encode(rep)
			}
			_, err = io.WriteString(e.Out, cliutil.Printable(rep.Text()))
			return err
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// demoWorkflow runs the shipped business-case workflow in the demo: an
// Orchestrator agent on the demo's host, invoked by the demo's caller.
func demoWorkflow(ctx context.Context, h *node.Host, c *caller.Caller, out io.Writer) error {
	wfs, err := agents.LoadWorkflows("", h.Node.Config.Workflow.MaxSteps)
	if err != nil {
		return err
	}
	if _, err := agents.NewOrchestrator(h, agents.KindOrchestrator, wfs); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "\nWorkflow business-case (a2abus workflow run business-case --wait), run by the Orchestrator agent:\n"); err != nil {
		return err
	}
	res, err := c.Call(ctx, caller.Request{Target: agents.KindOrchestrator, Skill: "business-case",
		Text: "Help me build a business case for market entry", Input: json.RawMessage(`{}`), Timeout: time.Minute}, nil)
	if err != nil {
		return fmt.Errorf("demo workflow: %w", err)
	}
	rep, ok := workflow.ReportFrom(res.Result.Artifacts)
	if !ok {
		return fmt.Errorf("demo workflow: no report: %s", summary(res.Result))
	}
	if _, err = io.WriteString(out, cliutil.Printable(rep.Text())); err != nil {
		return err
	}
	return demoRoute(ctx, c, out)
}

// demoRoute shows the Orchestrator's route skill with the keyword matcher
// (docs/routing.md): a request routed to the skill that fits it, and one
// that nothing fits, declined.
func demoRoute(ctx context.Context, c *caller.Caller, out io.Writer) error {
	if _, err := fmt.Fprintf(out, "\nRouting by intent (a2abus invoke Orchestrator route TEXT), classified by the keyword matcher (no model):\n"); err != nil {
		return err
	}
	for _, req := range []caller.Request{
		{Text: "Compute the net present value of these cash flows at a 12% discount rate", Input: json.RawMessage(`{"cash_flows":[-100000,25000,35000,45000,55000],"discount_rate":0.12}`)},
		{Text: "What will the weather be in Paris tomorrow?"},
	} {
		req.Target, req.Skill, req.Timeout = agents.KindOrchestrator, agents.SkillRoute, time.Minute
		res, err := c.Call(ctx, req, nil)
		if err != nil {
			return fmt.Errorf("demo route: %w", err)
		}
		rep, ok := intent.ReportFrom(res.Result.Artifacts)
		if !ok {
			return fmt.Errorf("demo route: no classification: %s", summary(res.Result))
		}
		target := "no agent"
		if rep.TargetAgent != "" {
			target = rep.TargetAgent + "." + rep.TargetCapability
		}
		answer := res.Result.Text()
		if res.Result.Error != nil {
			answer = summary(res.Result)
		}
		if _, err := fmt.Fprintf(out, "  %q\n    intent %q, confidence %.2f, %s: %s\n    %s\n", req.Text, rep.PrimaryIntent, rep.IntentConfidence, target, rep.Decision,
			strings.ReplaceAll(cliutil.Printable(text.Cut(answer, 1200)), "\n", "\n    ")); err != nil {
			return err
		}
	}
	return nil
}
