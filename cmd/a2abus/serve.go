// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/execbridge"
	"github.com/a2abus/a2abus/pkg/remote"
)

// newServeCmd builds `a2abus serve`: a reference agent (--agent), LLM agents
// from YAML (--agent-file), a process in any language (--exec) or remote
// A2A agents on the web (--remote).
func newServeCmd(c *cli) *cobra.Command {
	var kind, agentFile, execLine, cardFile, workflowsDir string
	var remotes []string
	var f *agents.Flags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run an agent until stopped: SampleAgent, ResearchAgent, Primary, Orchestrator, the LLM agents of a file (--agent-file), a process (--exec) or a remote A2A agent (--remote)",
		Long: "Runs the agent on the configured bus: it consumes agent.task.<name>, answers cancel requests and\n" +
			"stops gracefully on SIGINT/SIGTERM (in-flight tasks finish within agent.stop_timeout, the rest are\n" +
			"requeued). With --ephemeral it exits 0 after --max-tasks tasks or --idle-timeout without one (KEDA jobs).\n" +
			"With --agent-file it runs the LLM-backed agents declared in YAML instead (docs/llm-agents.md); with\n" +
			"--exec 'CMD ARGS' (or --exec -- CMD ARGS, the words after -- as they are) a process in any language\n" +
			"speaking NDJSON on stdin/stdout (docs/ndjson.md). With\n" +
			"--remote NAME an A2A agent on the web (any A2A SDK, JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3), declared in\n" +
			"remote.agents or as a well-known entry with a url: its card is fetched and checked every\n" +
			"remote.card_check_interval, its skills served under NAME, each task sent to it with a2aclient, its status\n" +
			"updates, artifacts and questions passed back, cancels and deadlines forwarded (docs/a2a-remote.md).\n" +
			"It logs JSON at info (log.level, log.format to change).",
		Example: "  a2abus serve --agent SampleAgent\n" +
			"  a2abus serve --agent ResearchAgent --docs ./docs --ephemeral --max-tasks 1 --idle-timeout 30s\n" +
			"  a2abus serve --agent Orchestrator --workflows workflows/\n" +
			"  a2abus serve --agent-file agents.d/\n" +
			"  a2abus serve --exec 'python3 examples/python-stdio/agent.py'\n" +
			"  a2abus serve --name PyAgent --exec -- python3 examples/python-stdio/agent.py --verbose\n" +
			"  a2abus serve --remote Weather",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("exec") {
				return nil // its command (execCommand)
			}
			return cobra.NoArgs(cmd, args)
		},
	}
	cliutil.SetProfile(cmd, cliutil.Daemon)
	cmd.RunE = c.withConfig(func(ctx context.Context, e *env, args []string) error {
		if err := f.Apply(cmd.Flags(), e.Config); err != nil {
			return err
		}
		if cmd.Flags().Changed("remote") {
			return serveRemote(ctx, cmd, e, remotes, f.Name())
		}
		if cmd.Flags().Changed("exec") {
			line, argv, err := execCommand(cmd, execLine, args)
			if err != nil {
				return err
			}
			return serveExec(ctx, cmd, e, execbridge.Options{Command: line, Argv: argv, Name: f.Name()}, cardFile)
		}
		if cmd.Flags().Changed("card") {
			return fmt.Errorf("--card describes the agent of --exec: give --exec with it")
		}
		if cmd.Flags().Changed("agent-file") {
			if cmd.Flags().Changed("agent") || f.Name() != "" {
				return fmt.Errorf("--agent-file declares its agents' names: give neither --agent nor --name with it")
			}
			return e.Explain(agents.ServeFile(ctx, e.Config, agentFile, e.Log))
		}
		if strings.EqualFold(kind, agents.KindOrchestrator) { // workflows (docs/workflows.md)
			return e.Explain(agents.ServeOrchestrator(ctx, e.Config, f.Name(), workflowsDir, e.Log))
		}
		if cmd.Flags().Changed("workflows") {
			return fmt.Errorf("--workflows is for --agent %s", agents.KindOrchestrator)
		}
		return e.Explain(agents.Serve(ctx, e.Config, kind, f.Name(), e.Log))
	})
	cmd.Flags().StringVar(&kind, "agent", agents.KindSample, "which agent to run: SampleAgent, ResearchAgent, Primary (the chat loop as an agent, skill chat; needs llm.*) or Orchestrator (workflows as skills)")
	cmd.Flags().StringVar(&workflowsDir, "workflows", "", "Orchestrator: the folder of workflow YAML files it exposes as skills (default: the shipped ones); see docs/workflows.md")
	cmd.Flags().StringVar(&agentFile, "agent-file", "", "run the LLM-backed agents declared in this YAML file, or in every .yaml file of this folder (agents.d); see docs/llm-agents.md")
	cmd.Flags().StringVar(&execLine, "exec", "", "run this command (one string, split as a shell would; or, given as --exec -- CMD ARGS, the words after -- as they are) as the agent, speaking NDJSON on stdin/stdout; see docs/ndjson.md")
	cmd.Flags().Lookup("exec").NoOptDefVal = execInArgs
	cmd.Flags().StringArrayVar(&remotes, "remote", nil, "serve the remote A2A agent of this name (remote.agents, or a well-known entry with a url) as a bus agent; repeat it for more; see docs/a2a-remote.md")
	cmd.Flags().StringVar(&cardFile, "card", "", "with --exec: the agent's card (JSON, the well-known-agents.json shape) instead of the one the process sends first")
	f = agents.AddFlags(cmd.Flags(), false)
	_ = cmd.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions([]string{agents.KindSample, agents.KindResearch, agents.KindPrimary, agents.KindOrchestrator}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// execInArgs is the value of --exec given without "=": its command is in
// the arguments, one line (--exec 'CMD ARGS') or the words after --.
const execInArgs = "--"

// execCommand reads the command of `serve --exec`: a command line to split
// (--exec 'CMD ARGS', --exec='CMD ARGS'), or the words after -- kept as
// they are (--exec -- CMD ARGS: no quoting, no splitting).
func execCommand(cmd *cobra.Command, flag string, args []string) (line string, argv []string, err error) {
	dash := cmd.ArgsLenAtDash()
	switch {
	case flag != execInArgs && len(args) > 0:
		return "", nil, fmt.Errorf("--exec=%q takes the whole command: the arguments %q are left over", flag, args)
	case flag != execInArgs:
		return flag, nil, nil
	case dash > 0:
		return "", nil, fmt.Errorf("--exec -- CMD ARGS: %q before -- is neither a flag nor the command", args[:dash])
	case dash == 0 && len(args) == 0:
		return "", nil, errors.New("--exec --: no program after --")
	case dash == 0:
		return "", args, nil
	case len(args) == 1:
		return args[0], nil, nil
	case len(args) == 0:
		return "", nil, errors.New("--exec needs the agent's command: --exec 'CMD ARGS', or --exec -- CMD ARGS")
	}
	return "", nil, fmt.Errorf("--exec takes one quoted command line, or the words after --: got the %d words %q; write --exec -- %s",
		len(args), args, execbridge.QuoteCommand(args))
}

// serveExec runs `a2abus serve --exec CMD [--card FILE] [--name NAME]`.
func serveExec(ctx context.Context, cmd *cobra.Command, e *env, opts execbridge.Options, cardFile string) error {
	if cmd.Flags().Changed("agent") || cmd.Flags().Changed("agent-file") {
		return fmt.Errorf("--exec runs its own agent: give neither --agent nor --agent-file with it")
	}
	if cmd.Flags().Changed("card") {
		card, err := execbridge.LoadCard(cardFile)
		if err != nil {
			return err
		}
		opts.Card = card
	}
	return e.Explain(execbridge.Serve(ctx, e.Config, opts, e.Log))
}

// serveRemote runs `a2abus serve --remote NAME [--remote NAME …]`.
func serveRemote(ctx context.Context, cmd *cobra.Command, e *env, names []string, name string) error {
	for _, other := range []string{"agent", "agent-file", "exec", "card", "workflows"} {
		if cmd.Flags().Changed(other) {
			return fmt.Errorf("--remote serves remote agents: give no --%s with it", other)
		}
	}
	if name != "" {
		return fmt.Errorf("--remote NAME is the agent's bus name: give no --name with it")
	}
	return e.Explain(remote.Serve(ctx, e.Config, names, e.Log))
}
