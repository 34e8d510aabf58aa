// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/node"
)

// newAgentsCmd builds `a2abus agents [--skill S] [--query Q] [--json] [--wait D]`.
func newAgentsCmd(c *cli) *cobra.Command {
	var skill, query string
	var asJSON bool
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the known agents: well-known ones and those running now",
		Long: "Starts a directory, asks every running agent to announce itself (discovery.query), waits up to\n" +
			"--wait for their answers and prints what it knows: each agent's status (online, offline,\n" +
			"well-known), instances, last seen and skills.",
		Example: "  a2abus agents\n" +
			"  a2abus agents --skill npv --wait 2s\n" +
			"  a2abus agents --query research --json | jq -r '.[].name'",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			n, err := e.OpenBusNode(ctx, "a2abus-agents")
			if err != nil {
				return err
			}
			defer func() { _ = n.Close() }()
			entries, err := listDirectory(ctx, n, wait, directory.Filter{Skill: skill, Query: query})
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(e.Out).Encode(entries)
			}
			return printAgents(e, entries)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&skill, "skill", "", "only agents with this skill")
	f.StringVar(&query, "query", "", "only agents whose name, description or skills contain this text")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.DurationVar(&wait, "wait", time.Second, "how long to wait for running agents to announce themselves")
	_ = cmd.RegisterFlagCompletionFunc("skill", c.completeSkill)
	return cmd
}

// listDirectory runs a directory on n for wait — it asks every running
// agent to announce itself as it starts — and returns the entries filter
// selects. ctx ending stops the wait early.
func listDirectory(ctx context.Context, n *node.Node, wait time.Duration, filter directory.Filter) ([]directory.Entry, error) {
	d, err := n.Directory(node.Lister)
	if err != nil {
		return nil, err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- d.Run(runCtx) }()
	select { // Run asks the agents at start; their answers arrive meanwhile
	case <-time.After(wait):
	case err := <-done:
		return nil, err
	case <-ctx.Done():
	}
	stop()
	<-done
	return d.List(filter), nil
}

func printAgents(e *env, entries []directory.Entry) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(e.Out, "no agents known")
		return err
	}
	w := tabwriter.NewWriter(e.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSTATUS\tINSTANCES\tLAST SEEN\tSKILLS\tDESCRIPTION")
	for _, en := range entries {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", cliutil.PrintableLine(en.Name), en.Status, len(en.Instances), en.LastSeenText(),
			cliutil.PrintableLine(strings.Join(en.SkillIDs(), ",")), cliutil.PrintableLine(truncate(en.Card.Description, 60)))
	}
	return w.Flush()
}

// newDirectoryCmd builds `a2abus directory`: the directory alone, persisted.
func newDirectoryCmd(c *cli) *cobra.Command {
	return cliutil.SetProfile(&cobra.Command{
		Use:   "directory",
		Short: "Run the agent directory alone until stopped (persisting directory.known_agents_file)",
		Long: "Runs a directory that keeps directory.known_agents_file up to date with the agents that announce\n" +
			"themselves, until SIGINT/SIGTERM. It logs JSON at info, as serve does.",
		Example: "  a2abus directory\n" +
			"  A2ABUS_DIRECTORY_KNOWN_AGENTS_FILE=/data/known-agents.json a2abus directory --amqp-url amqp://user:pass@rabbit:5672/",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			n, err := e.OpenBusNode(ctx, "a2abus-directory")
			if err != nil {
				return err
			}
			defer func() { _ = n.Close() }()
			if _, err := n.StartOps(ctx); err != nil { // ops.listen: metrics, health, readiness (closed with the node)
				return err
			}
			d, err := n.Directory(node.Keeper)
			if err != nil {
				return err
			}
			return d.Run(ctx)
		}),
	}, cliutil.Daemon)
}
