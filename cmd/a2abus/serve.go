package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/agents"
)

// newServeCmd builds `a2abus serve --agent SampleAgent|ResearchAgent`.
func newServeCmd(c *cli) *cobra.Command {
	var kind string
	var f *agents.Flags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a reference agent (SampleAgent or ResearchAgent) until stopped",
		Long: "Runs the agent on the configured bus: it consumes agent.task.<name>, answers cancel requests and\n" +
			"stops gracefully on SIGINT/SIGTERM (in-flight tasks finish within agent.stop_timeout, the rest are\n" +
			"requeued). With --ephemeral it exits 0 after --max-tasks tasks or --idle-timeout without one (KEDA jobs).",
		Args: cobra.NoArgs,
	}
	cmd.RunE = c.withConfig(func(ctx context.Context, e *env, _ []string) error {
		if err := f.Apply(cmd.Flags(), e.Config); err != nil {
			return err
		}
		return agents.Serve(ctx, e.Config, kind, f.Name(), e.Log)
	})
	cmd.Flags().StringVar(&kind, "agent", agents.KindSample, "which agent to run: SampleAgent or ResearchAgent")
	f = agents.AddFlags(cmd.Flags(), false)
	return cmd
}
