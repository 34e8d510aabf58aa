// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// newTopologyCmd builds `a2abus topology apply`.
func newTopologyCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "topology",
		Short:   "Manage the bus topology (exchanges and queues)",
		Example: "  a2abus topology apply --agent Translator",
		Args:    cobra.NoArgs,
	}
	var agents []string
	apply := &cobra.Command{
		Use:   "apply",
		Short: "Declare the exchange, the dead-letter exchange and queue, and the task queue of every well-known agent",
		Long: "Declares, idempotently and with the same arguments the agents and callers use, the topic exchange,\n" +
			"the dead-letter exchange <exchange>.dlx with its queue <exchange>.dead, and agent.task.<Name> for every\n" +
			"agent in directory.well_known_file and every --agent. A queue that exists with other arguments is an error.\n" +
			"On RabbitMQ it prints, without applying it (that needs management rights), the policy that bounds the dead queue.",
		Example: "  a2abus topology apply\n" +
			"  a2abus topology apply --amqp-url amqps://admin:secret@rabbit:5671/ --agent Translator --agent Summarizer",
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
			b, err := e.OpenBus(ctx, "a2abus-topology")
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
			if !e.Config.Bus.Embedded() {
				fmt.Fprintf(e.Out, "dead queue limits: a policy, not applied here; recommended (see docs/topology.md):\n  %s\n",
					deadLetterPolicyCommand(e.Config.Bus.URL, ex))
			}
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

// deadLetterPolicy is the definition of the policy that bounds the dead queue:
// at most 100,000 messages, each kept at most 14 days, the oldest dropped first.
const deadLetterPolicy = `{"max-length":100000,"message-ttl":1209600000,"overflow":"drop-head"}`

// deadLetterPolicyCommand is the rabbitmqctl command that applies
// deadLetterPolicy to the dead queue of exchange, in the vhost of busURL.
func deadLetterPolicyCommand(busURL, exchange string) string {
	vhost := "/"
	if u, err := amqp.ParseURI(busURL); err == nil && u.Vhost != "" {
		vhost = u.Vhost
	}
	pattern := "^" + regexp.QuoteMeta(a2a.DeadLetterQueue(exchange)) + "$"
	return fmt.Sprintf("rabbitmqctl set_policy -p %s --apply-to queues --priority 1 %s-dead-limits %s %s",
		shellQuote(vhost), exchange, shellQuote(pattern), shellQuote(deadLetterPolicy))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
