// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command go-agent is a minimal a2abus agent written with the Go SDK: it
// answers the skill "greet" with a greeting for the name in the message.
//
// It is configured like the a2abus binaries: a2abus.yaml in the working
// directory (or /etc/a2abus), then A2ABUS_* variables. Without bus.url and
// redis.url it runs on the embedded bus, alone in its process (node.Open
// warns so; embedded:// says it on purpose); to be called from elsewhere,
// point it at RabbitMQ and Redis:
//
//	A2ABUS_BUS_URL=amqp://guest:guest@127.0.0.1:5672/ A2ABUS_REDIS_URL=redis://127.0.0.1:6379/0 go run ./examples/go-agent
//
// It runs until SIGINT or SIGTERM, then finishes the tasks in flight (within
// agent.stop_timeout) and exits 0.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/node"
)

func main() {
	name := flag.String("name", "GreeterAgent", "the agent's name on the bus (callers call it by this name)")
	flag.Parse()
	if err := run(*name); err != nil {
		fmt.Fprintln(os.Stderr, "go-agent:", err)
		os.Exit(1)
	}
}

func run(name string) error {
	// 1. Configuration: defaults, then a2abus.yaml, then A2ABUS_* variables.
	cfg, err := config.Load(config.LoadOptions{})
	if err != nil {
		return fmt.Errorf("load configuration: %w", err)
	}
	// node.NewLogger is the binaries' logger: unsampled, so every per-task
	// audit line is kept (a sampling logger such as zap.NewProduction drops some).
	log, err := node.NewLogger(cfg.Log, os.Stderr)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	// 2. The context ends on SIGINT or SIGTERM: that is how the agent stops.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// 3. Assembly: the node opens the configured bus and working memory and
	// builds every part with the settings that apply to it.
	n, err := node.Open(ctx, cfg, name, log)
	if err != nil {
		return fmt.Errorf("open node: %w", err)
	}
	defer func() { _ = n.Close() }() // runs last, once the agent has stopped

	// 4. The agent: a card (what the directory shows) and one handler per skill.
	card := a2a.AgentCard{
		Name: name, Version: "1.0.0", Description: "Greets people (a2abus Go SDK example).",
		Skills: []a2a.AgentSkill{{ID: "greet", Name: "Greet", Description: "Greets the person named in the message."}},
	}
	a, err := n.Agent(card)
	if err != nil {
		return err
	}
	err = a.Handle("greet", func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		who := strings.TrimSpace(t.Text())
		if who == "" {
			// A typed error chooses the code the caller sees.
			return nil, a2a.NewError(a2a.CodeInvalidInput, "say whom to greet")
		}
		return agent.TextResult(fmt.Sprintf("Hello, %s! (from %s)", who, name)), nil
	})
	if err != nil {
		return fmt.Errorf("register greet: %w", err)
	}

	// 5. Run: declare agent.task.<name>, announce the card, work the tasks
	// until ctx ends; then stop in order and return nil.
	log.Info("agent running; stop it with Ctrl-C", zap.String("agent", name), zap.Bool("embedded", cfg.Bus.Embedded()))
	if err := a.Run(ctx); err != nil {
		return fmt.Errorf("run agent %s: %w", name, err)
	}
	log.Info("agent stopped", zap.String("agent", name))
	return nil
}
