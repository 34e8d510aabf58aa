// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/access"
	"github.com/a2abus/a2abus/pkg/node"
)

// newAccessCmd groups the access commands: `a2abus access plan`.
func newAccessCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "access",
		Example: "  a2abus access plan\n  a2abus access plan --format manifests --agent SampleAgent --caller Cli",
		Short:   "Least-privilege broker users and permissions for agents and callers",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newAccessPlanCmd(c))
	return cmd
}

// newAccessPlanCmd builds `a2abus access plan [--agent N]... [--caller N]...
// [--from-bus] [--format commands|manifests]`.
func newAccessPlanCmd(c *cli) *cobra.Command {
	var (
		agents, callers           []string
		fromBus                   bool
		wait                      time.Duration
		format, vhost             string
		cluster, namespace        string
		noWellKnown, noConfigName bool
		noGateway, noPolicy       bool
	)
	cmd := &cobra.Command{
		Use: "plan",
		Example: "  a2abus access plan > grant.sh   # rabbitmqctl commands; passwords from $A2ABUS_PASSWORD_<USER>\n" +
			"  a2abus access plan --from-bus --format manifests > access.yaml\n" +
			"  A2ABUS_DIRECTORY_WELL_KNOWN_FILE=deploy/base/well-known-agents.json \\\n" +
			"    a2abus access plan --config deploy/base/a2abus.yaml --format manifests > deploy/components/access/access.yaml",
		Short: "Print the broker users and permissions each agent and caller needs",
		Long: "Works out, for every agent (directory.well_known_file, remote.agents, --agent, and with --from-bus\n" +
			"the agents running now, and the targets policy.rules' allow lists name) and every caller (caller.name, --caller,\n" +
			"the callers policy.rules name, and the gateway's: the names its keys and JWTs\n" +
			"map to, which identity.users maps to the gateway's broker user), the RabbitMQ user it connects as\n" +
			"(its name, or the user identity.users maps to it), the vhost permissions (configure, write,\n" +
			"read) and the topic permissions on bus.exchange and its dead-letter exchange that the bus\n" +
			"topology needs, and no more; the targets an agent or caller may publish tasks to follow\n" +
			"policy.*. Prints rabbitmqctl commands (passwords read from A2ABUS_PASSWORD_<USER>) or, with\n" +
			"--format manifests, RabbitMQ Messaging Topology Operator objects. See docs/security.md.",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			cfg := e.Config
			roster := access.Roster{Agents: agents, Users: cfg.Identity.Users}
			if !noConfigName {
				roster.Callers = append(roster.Callers, cfg.Caller.Name)
			}
			roster.Callers = append(roster.Callers, callers...)
			if !noGateway {
				names, err := cfg.Gateway.Callers() // the gateway acts as each (identity.users maps them to its broker user)
				if err != nil {
					return fmt.Errorf("access plan: %w", err)
				}
				roster.Callers = append(roster.Callers, names...)
			}
			if !noWellKnown {
				wk, err := node.WellKnown(cfg, e.Log)
				if err != nil {
					return fmt.Errorf("access plan: %w", err)
				}
				for _, a := range wk {
					roster.Agents = append(roster.Agents, a.AgentName)
				}
			}
			for _, a := range cfg.Remote.Agents { // serve --remote connects as each
				roster.Agents = append(roster.Agents, a.Name)
			}
			if !noPolicy { // the callers the rules name, and the agents they may call
				callers, targets := access.PolicyNames(node.Policy(cfg))
				roster.Agents = append(roster.Agents, targets...)
				roster.Callers = append(roster.Callers, callers...)
			}
			if fromBus {
				running, err := runningAgents(ctx, e, wait)
				if err != nil {
					return err
				}
				roster.Agents = append(roster.Agents, running...)
			}
			g, err := node.Guard(cfg, e.Log)
			if err != nil {
				return err
			}
			roster.MayCall = func(caller, target string) bool { return g.Authorize(caller, target) == nil }
			if vhost == "" {
				vhost = urlVHost(cfg.Bus.URL)
			}
			plan, err := access.Build(access.Options{VHost: vhost, Exchange: cfg.Bus.Exchange, Principals: roster.Principals()})
			if err != nil {
				return err
			}
			switch format {
			case "commands":
				return plan.WriteCommands(e.Out)
			case "manifests":
				return plan.WriteManifests(e.Out, access.ManifestOptions{Cluster: cluster, Namespace: namespace})
			}
			return fmt.Errorf("access plan: --format %q must be commands or manifests", format)
		}),
	}
	f := cmd.Flags()
	f.StringArrayVar(&agents, "agent", nil, "an agent to plan for (repeatable), besides the well-known ones")
	f.StringArrayVar(&callers, "caller", nil, "a caller that serves nothing (repeatable), besides caller.name")
	f.BoolVar(&fromBus, "from-bus", false, "also plan for the agents running now (asks them on the bus)")
	f.DurationVar(&wait, "wait", time.Second, "with --from-bus, how long to wait for running agents to announce themselves")
	f.BoolVar(&noWellKnown, "no-well-known", false, "leave out directory.well_known_file")
	f.BoolVar(&noConfigName, "no-config-caller", false, "leave out caller.name")
	f.BoolVar(&noPolicy, "no-policy-names", false, "leave out the callers policy.rules name and the agents their allow lists name")
	f.BoolVar(&noGateway, "no-gateway", false, "leave out the gateway's callers (the names of gateway.keys, gateway.keys_file and gateway.jwt.callers)")
	f.StringVar(&format, "format", "commands", "commands (rabbitmqctl) or manifests (Messaging Topology Operator)")
	f.StringVar(&vhost, "vhost", "", "the RabbitMQ virtual host (default: bus.url's, else /)")
	f.StringVar(&cluster, "cluster", "rabbitmq", "with --format manifests, the RabbitmqCluster the objects refer to")
	f.StringVar(&namespace, "namespace", "", "with --format manifests, the objects' namespace")
	return cmd
}

// runningAgents lists the agents that answer a discovery query within wait.
func runningAgents(ctx context.Context, e *env, wait time.Duration) ([]string, error) {
	n, err := node.OpenBus(ctx, e.Config, "a2abus-access", e.Log)
	if err != nil {
		return nil, err
	}
	defer func() { _ = n.Close() }()
	d, stop, err := n.StartDirectory(ctx, node.Lister)
	if err != nil {
		return nil, err
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
	}
	stop()
	var names []string
	for _, en := range d.List(directory.Filter{}) {
		names = append(names, en.Name)
	}
	return names, nil
}

// urlVHost is the virtual host of an AMQP URL: its path unescaped, "/" when empty.
func urlVHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || len(u.Path) <= 1 {
		return "/"
	}
	if v, err := url.PathUnescape(u.Path[1:]); err == nil {
		return v
	}
	return "/"
}
