// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/console"
	"github.com/a2abus/a2abus/pkg/node"
)

// DefaultConsoleListen is where `a2abus console` listens unless told.
const DefaultConsoleListen = "127.0.0.1:8091"

// maxTokenFileBytes bounds the console's token file.
const maxTokenFileBytes = 4 << 10

// consoleFlags are the settings of a console besides the configuration.
type consoleFlags struct {
	listen    string
	tokenFile string
	callers   []string
	actions   bool
}

// newConsoleCmd builds `a2abus console`: a read-only web view of the mesh.
func newConsoleCmd(c *cli) *cobra.Command {
	f := consoleFlags{listen: DefaultConsoleListen}
	cmd := &cobra.Command{
		Use:   "console",
		Short: "Serve a read-only web console of the mesh: agents, sessions (live), workflows, dead letters, health",
		Long: "Serves a web console over the configured bus and working memory: the agents of the directory with\n" +
			"their task queues (depth, consumers); a session's conversation, call history, tree of calls, task\n" +
			"waterfall and stored results (redacted), followed live; workflow runs and orchestrated conversations;\n" +
			"the dead-letter queue with each message's reason; and this process's view of the broker, Redis and\n" +
			"the limits in force. Read-only unless --actions (which needs --token-file): then a dead letter can be\n" +
			"republished to its queue or dropped, and a conversation paused, resumed, stopped, taken over or\n" +
			"approved (as `a2abus converse` does), each action logged. It listens on 127.0.0.1 unless --token-file\n" +
			"names a token, which every request must then carry (open the console with ?token=<token> once). The\n" +
			"URL is printed on stdout once the address is bound. See docs/console.md.",
		Example: "  a2abus console\n" +
			"  a2abus console --listen 127.0.0.1:0 --caller Cli\n" +
			"  a2abus console --listen 0.0.0.0:8091 --token-file /run/secrets/console-token\n" +
			"  a2abus console --actions --token-file /run/secrets/console-token",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			n, err := e.OpenNode(ctx, "a2abus-console")
			if err != nil {
				return err
			}
			return node.ServeOn(ctx, n, func(ctx context.Context, h *node.Host) error {
				_, err := buildConsole(h, e, f)
				return err
			})
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", f.listen, "the host:port to serve (port 0 picks one); other than loopback needs --token-file")
	fl.StringVar(&f.tokenFile, "token-file", "", "a file holding the token every request must carry (at least 16 bytes)")
	fl.BoolVar(&f.actions, "actions", false, "let an authenticated user republish or drop dead letters and pause, resume, stop, take over or approve conversations (needs --token-file; each action is logged)")
	fl.StringArrayVar(&f.callers, "caller", nil, "also show the unfinished tasks of this caller before they end (default caller.name); repeatable")
	return cliutil.SetProfile(cmd, cliutil.Daemon)
}

// buildConsole adds a console on h's node to h (it stops with the entry
// tier) and prints its URL on e.Out.
func buildConsole(h *node.Host, e *env, f consoleFlags) (net.Addr, error) {
	cfg, n := e.Config, h.Node
	d, err := h.Directory(node.Lister)
	if err != nil {
		return nil, err
	}
	o := console.Options{Directory: d, Memory: n.Memory, Guard: n.Guard, Ready: n.Ops.Ready, Limits: cfg.HTTP.Limits(), Logger: e.Log,
		Callers: f.callers, Settings: consoleSettings(e), Actions: f.actions, Controls: n.Bus}
	if len(o.Callers) == 0 && cfg.Caller.Name != "" {
		o.Callers = []string{cfg.Caller.Name}
	}
	if f.tokenFile != "" {
		b, err := fileread.Read(f.tokenFile, maxTokenFileBytes)
		if err != nil {
			return nil, fmt.Errorf("console: token: %w", err)
		}
		o.Token = strings.TrimSpace(string(b))
	}
	if rb, ok := n.Bus.(*rabbitmq.Bus); ok {
		o.Queues = rb
		tc, err := cfg.Bus.ClientTLS()
		if err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
		o.DeadLetters = console.AMQPDeadLetters{URL: cfg.Bus.URL, TLS: tc, Queue: a2a.DeadLetterQueue(cfg.Bus.Exchange),
			Quorum: cfg.Bus.QueueType == rabbitmq.QueueTypeQuorum}
	}
	con, err := console.New(o)
	if err != nil {
		return nil, err
	}
	addr, err := con.Listen(f.listen)
	if err != nil {
		return nil, err
	}
	if err := h.Add(node.TierEntry, "console", con); err != nil {
		_ = con.Close()
		return nil, err
	}
	e.Log.Info("console serving", zap.Stringer("addr", addr), zap.Bool("token", o.Token != ""))
	if _, err := fmt.Fprintf(e.Out, "console: http://%s/\n", addr); err != nil {
		return nil, err
	}
	return addr, nil
}

// consoleSettings are the limits in force the health page shows.
func consoleSettings(e *env) [][2]string {
	cfg := e.Config
	return [][2]string{
		{"caller.default_timeout", cfg.Caller.DefaultTimeout.String()},
		{"caller.max_timeout", cfg.Caller.MaxTimeout.String()},
		{"caller.max_depth", strconv.Itoa(cfg.Caller.MaxDepth)},
		{"limits.max_in_flight", strconv.Itoa(cfg.Limits.MaxInFlight)},
		{"limits.rate", strconv.FormatFloat(cfg.Limits.Rate, 'g', -1, 64)},
		{"limits.burst", strconv.Itoa(cfg.Limits.Burst)},
		{"limits.breaker_failures", strconv.Itoa(cfg.Limits.BreakerFailures)},
		{"limits.breaker_cooldown", cfg.Limits.BreakerCooldown.String()},
		{"bus.max_message_bytes", strconv.Itoa(cfg.Bus.MaxMessageBytes)},
		{"bus.max_attempts", strconv.Itoa(cfg.Bus.MaxAttempts)},
		{"bus.queue_type", cfg.Bus.QueueType},
		{"memory.result_ttl", cfg.Memory.ResultTTL.String()},
	}
}
