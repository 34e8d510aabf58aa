// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/node"
)

// Serve runs the bridges of the remote agents names on the configured bus
// until ctx is done (`a2abus serve --remote NAME`): an unknown name, or a
// credential file that cannot be read, is refused before anything
// connects; then each remote's card is fetched (Build) and its agent
// served on one node.Host.
func Serve(ctx context.Context, cfg *config.Config, names []string, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return node.ErrNoConfig
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: name the remote agent to serve", ErrUnknownRemote)
	}
	wk, err := node.WellKnown(cfg, log)
	if err != nil {
		return err
	}
	specs, err := lookupAll(cfg, wk, names)
	if err != nil {
		return err
	}
	for _, s := range specs {
		if _, _, err := s.Auth.Credential(s.Source); err != nil {
			return fmt.Errorf("remote agent %q: %w", s.Name, err)
		}
	}
	return node.Serve(ctx, cfg, "remote-"+specs[0].Name, log, BuildSpecs(specs...))
}

// Build returns the node.Build that adds to a host the bridges of the
// remote agents names — every remote the configuration declares
// (remote.agents, well-known entries with a url) when none is named. An
// HTTP gateway serving its configured remotes calls it on its host.
func Build(names ...string) node.Build {
	return func(ctx context.Context, h *node.Host) error {
		cfg := h.Node.Config
		wk, err := node.WellKnown(cfg, h.Node.Log)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			names = Names(cfg, wk)
		}
		specs, err := lookupAll(cfg, wk, names)
		if err != nil {
			return err
		}
		return BuildSpecs(specs...)(ctx, h)
	}
}

// BuildSpecs returns the node.Build that adds, for each spec, its bridge
// (a backend: it stops once the agent has, its card fetched by Start) and
// the agent of its card (agent.concurrency tasks at once) to a host.
func BuildSpecs(specs ...Spec) node.Build {
	return func(ctx context.Context, h *node.Host) error {
		for _, s := range specs {
			if err := buildOne(ctx, h, s); err != nil {
				return err
			}
		}
		return nil
	}
}

func buildOne(ctx context.Context, h *node.Host, s Spec) error {
	opts := OptionsFor(h.Node.Config, s)
	opts.Logger = h.Node.Log
	if h.Node.Ops != nil {
		opts.Observer = h.Node.Ops
	}
	b, err := New(opts)
	if err != nil {
		return err
	}
	if err := b.Start(ctx); err != nil {
		return err
	}
	if err := h.Add(node.TierBackends, "remote "+s.Name, b); err != nil {
		return err
	}
	card, err := b.Card()
	if err != nil {
		return err
	}
	if _, err := h.Agent(card, b.Register); err != nil {
		return err
	}
	h.Node.Log.Info("serving remote agent", zap.String("agent", s.Name), zap.String("card_url", b.cardURL), zap.Int("skills", len(card.Skills)),
		zap.Int("concurrency", h.Node.Config.Agent.Concurrency))
	return nil
}

// lookupAll resolves every name, reporting all unknown ones.
func lookupAll(cfg *config.Config, wk []directory.WellKnownAgent, names []string) ([]Spec, error) {
	var (
		specs []Spec
		errs  []error
	)
	for _, n := range names {
		s, err := Lookup(cfg, wk, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		specs = append(specs, s)
	}
	return specs, errors.Join(errs...)
}
