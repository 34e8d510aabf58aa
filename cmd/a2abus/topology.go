package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/backends"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// newTopologyCmd builds `a2abus topology apply`.
func newTopologyCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topology",
		Short: "Manage the bus topology (exchanges and queues)",
	}
	var agents []string
	apply := &cobra.Command{
		Use:   "apply",
		Short: "Declare the exchange, the dead-letter exchange and queue, and the task queue of every well-known agent",
		Long: "Declares, idempotently and with the same arguments the agents and callers use, the topic exchange,\n" +
			"the dead-letter exchange <exchange>.dlx with its queue <exchange>.dead, and agent.task.<Name> for every\n" +
			"agent in directory.well_known_file and every --agent. A queue that exists with other arguments is an error.",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			known, err := directory.LoadWellKnown(e.Config.Directory.WellKnownFile)
			if err != nil {
				return err
			}
			names := make([]string, 0, len(known)+len(agents))
			for _, k := range known {
				names = append(names, k.AgentName)
			}
			for _, n := range agents {
				if err := a2a.ValidateAgentName(n); err != nil {
					return fmt.Errorf("--agent: %w", err)
				}
				names = append(names, n)
			}
			b, err := backends.Bus(ctx, e.Config.Bus, "a2abus-topology", e.Log)
			if err != nil {
				return err
			}
			defer func() { _ = b.Close() }()
			where := "embedded in-process bus"
			if !e.Config.Bus.Embedded() {
				where = "RabbitMQ"
			}
			ex := e.Config.Bus.Exchange
			kind := fmt.Sprintf("durable, priority 0-%d", bus.MaxPriority)
			if e.Config.Bus.QueueType == "quorum" {
				kind = "durable, quorum, no priority"
			}
			fmt.Fprintf(e.Out, "bus: %s\nexchange %s (topic, durable)\ndead-letter exchange %s -> queue %s\n",
				where, ex, a2a.DeadLetterExchange(ex), a2a.DeadLetterQueue(ex))
			for _, n := range names {
				spec, err := bus.TaskQueue(n)
				if err != nil {
					return err
				}
				if err := b.Declare(ctx, spec); err != nil {
					return err
				}
				fmt.Fprintf(e.Out, "task queue %s (%s, dead-lettered to %s)\n", spec.Name, kind, a2a.DeadLetterExchange(ex))
			}
			return nil
		}),
	}
	apply.Flags().StringSliceVar(&agents, "agent", nil, "also declare the task queue of this agent (repeatable)")
	cmd.AddCommand(apply)
	return cmd
}
