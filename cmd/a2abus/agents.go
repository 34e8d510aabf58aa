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
	"github.com/a2abus/a2abus/internal/backends"
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
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			b, err := backends.Bus(ctx, e.Config.Bus, "a2abus-agents", e.Log)
			if err != nil {
				return err
			}
			defer func() { _ = b.Close() }()
			d, err := backends.Directory(e.Config, b, false, e.Log)
			if err != nil {
				return err
			}
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- d.Run(runCtx) }()
			select { // Run asks the agents at start; their answers arrive meanwhile
			case <-time.After(wait):
			case err := <-done:
				stop()
				return err
			case <-ctx.Done():
			}
			stop()
			<-done
			entries := d.List(directory.Filter{Skill: skill, Query: query})
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
	return cmd
}

func printAgents(e *env, entries []directory.Entry) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(e.Out, "no agents known")
		return err
	}
	w := tabwriter.NewWriter(e.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSTATUS\tINSTANCES\tLAST SEEN\tSKILLS\tDESCRIPTION")
	for _, en := range entries {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\n", en.Name, en.Status, len(en.Instances), en.LastSeenText(),
			strings.Join(en.SkillIDs(), ","), truncate(en.Card.Description, 60))
	}
	return w.Flush()
}

// newDirectoryCmd builds `a2abus directory`: the directory alone, persisted.
func newDirectoryCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "directory",
		Short: "Run the agent directory alone until stopped (persisting directory.known_agents_file)",
		Args:  cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			b, err := backends.Bus(ctx, e.Config.Bus, "a2abus-directory", e.Log)
			if err != nil {
				return err
			}
			defer func() { _ = b.Close() }()
			d, err := backends.Directory(e.Config, b, true, e.Log)
			if err != nil {
				return err
			}
			return d.Run(ctx)
		}),
	}
}
