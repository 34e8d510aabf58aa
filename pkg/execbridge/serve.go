// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"cmp"
	"context"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/node"
)

// Serve runs the agent process of opts as a bus agent on the configured bus
// until ctx is done or, when cfg.Agent.Ephemeral, its task budget or idle
// time runs out (`a2abus serve --exec`). A bad command line is refused
// before anything connects; then it serves the bridge on a node.Host
// (Build). A process that does not start or sends no usable card, and a
// crash loop, are errors.
func Serve(ctx context.Context, cfg *config.Config, opts Options, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return node.ErrNoConfig
	}
	opts.Logger = log
	opts.Concurrency = cfg.Agent.Concurrency
	opts.MaxFrameBytes = cmp.Or(opts.MaxFrameBytes, cfg.Bus.MaxMessageBytes)
	b, err := New(opts) // a bad command line is refused before anything connects
	if err != nil {
		return err
	}
	connName := opts.Name
	if connName == "" && opts.Card != nil {
		connName = opts.Card.AgentName
	}
	return node.Serve(ctx, cfg, cmp.Or(connName, "exec-agent"), log, b.Build)
}

// Build starts the process of a bridge not started yet, gets its card and
// adds to h the agent of the card (agent.concurrency requests at once), a
// caller of its name for the process's invoke frames, and the bridge itself
// as a backend: the host stops the agent (its tasks finish on the process),
// then the caller, then the process.
func (b *Bridge) Build(ctx context.Context, h *node.Host) error {
	if err := b.Start(ctx); err != nil {
		return err
	}
	if err := h.Add(node.TierBackends, "agent process", b); err != nil {
		return err
	}
	h.Node.Ops.Check("agent process", b.Ready)
	card, err := b.Card()
	if err != nil {
		return err
	}
	c, err := h.Caller(card.Name)
	if err != nil {
		return err
	}
	if _, err := h.Agent(card, func(a *agent.Agent) error { return b.Register(a, c) }); err != nil {
		return err
	}
	cfg := h.Node.Config
	h.Node.Log.Info("serving agent process", zap.String("agent", card.Name), zap.Int("skills", len(card.Skills)),
		zap.Int("concurrency", cfg.Agent.Concurrency), zap.Bool("ephemeral", cfg.Agent.Ephemeral))
	return nil
}
