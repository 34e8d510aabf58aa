// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/gateway"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/remote"
)

// newGatewayCmd builds `a2abus gateway`: every agent of the directory an
// A2A server over HTTP.
func newGatewayCmd(c *cli) *cobra.Command {
	var listen string
	var remotes []string
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Serve every agent of the bus to A2A clients over HTTP (JSON-RPC, REST, server-sent events)",
		Long: "Runs the A2A gateway: for every agent the directory knows (announced, or well-known), an A2A v1.0\n" +
			"card at /agents/<Name>/.well-known/agent-card.json and the protocol's methods over JSON-RPC (POST\n" +
			"/agents/<Name>) and HTTP+JSON (/agents/<Name>/rest/...): send (blocking or not), stream, get, cancel,\n" +
			"resubscribe, list, push notifications. Every request is authenticated (gateway.keys, gateway.keys_file,\n" +
			"gateway.jwt.*) and acts on the bus as the caller name its key or token maps to, under that name's policy\n" +
			"and limits. The gateway is stateless: run any number of replicas. The URL is printed on stdout once the\n" +
			"address is bound. With --remote NAME it also serves the remote A2A agent NAME on the bus (as `serve\n" +
			"--remote` does), so A2A agents on the web and on the bus answer through one gateway. See docs/a2a-http.md.",
		Example: "  A2ABUS_GATEWAY_KEYS=Alice=alice-key-0123456789ab a2abus gateway --listen 127.0.0.1:8090\n" +
			"  curl -H 'Authorization: Bearer alice-key-0123456789ab' http://127.0.0.1:8090/agents",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			if listen != "" {
				e.Config.Gateway.Listen = listen
			}
			return runGateway(ctx, e, remotes)
		}),
	}
	cmd.Flags().StringVar(&listen, "listen", "", "the host:port to serve (port 0 picks one; default gateway.listen)")
	cmd.Flags().StringArrayVar(&remotes, "remote", nil, "also serve this remote A2A agent (remote.agents, or a well-known entry with a url) on the bus; repeatable")
	return cliutil.SetProfile(cmd, cliutil.Daemon)
}

func runGateway(ctx context.Context, e *env, remotes []string) error {
	cfg := e.Config
	if err := cfg.Validate(); err != nil { // --listen
		return err
	}
	keys, err := cfg.Gateway.GatewayKeys()
	if err != nil {
		return err
	}
	names, err := cfg.Gateway.Callers()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return errors.New("gateway: no principals: set gateway.keys, gateway.keys_file or gateway.jwt.* (every request must be authenticated)")
	}
	if err := cfg.CheckGatewayCallers(names); err != nil {
		return err
	}
	n, err := e.OpenNode(ctx, "a2abus-gateway")
	if err != nil {
		return err
	}
	return node.ServeOn(ctx, n, func(ctx context.Context, h *node.Host) error {
		if _, err := n.StartOps(ctx); err != nil { // ops.listen: metrics, health, readiness (closed with the node)
			return err
		}
		if len(remotes) > 0 { // the remote agents' bridges, on the same host
			if err := remote.Build(remotes...)(ctx, h); err != nil {
				return err
			}
		}
		return buildGateway(ctx, h, e, keys, names)
	})
}

// buildGateway adds the gateway's parts to h: the host's directory (a
// Lister: every running agent announces itself at start), a caller per
// principal's name, and the gateway, which stops first.
func buildGateway(_ context.Context, h *node.Host, e *env, keys []config.GatewayKey, names []string) error {
	cfg, n := e.Config, h.Node
	d, err := h.Directory(node.Lister)
	if err != nil {
		return err
	}
	callers := make([]*caller.Caller, 0, len(names))
	for _, name := range names {
		c, err := h.Caller(name)
		if err != nil {
			return err
		}
		callers = append(callers, c)
	}
	o := gateway.Options{
		Callers: callers, Directory: d, Memory: n.Memory, PublicURL: cfg.Gateway.PublicURL, PublicCards: cfg.Gateway.PublicCards,
		Rate: cfg.Gateway.Rate, Burst: cfg.Gateway.Burst, MaxStreams: cfg.Gateway.MaxStreams, StreamKeepAlive: cfg.Gateway.StreamKeepAlive,
		CancelWait: cfg.Gateway.CancelWait, MaxListedTasks: cfg.Gateway.MaxListedTasks, Limits: cfg.HTTP.Limits(),
		Push: gateway.PushOptions{Allow: cfg.Gateway.Push.Allow, Timeout: cfg.Gateway.Push.Timeout,
			MaxAttempts: cfg.Gateway.Push.MaxAttempts, MaxPending: cfg.Gateway.Push.MaxPending},
		Ready: n.Ops.Ready, Logger: e.Log,
	}
	if n.Ops != nil { // ops.listen serves the metrics
		o.Registerer = n.Ops.Registry()
	}
	if o.Rate == 0 {
		o.Rate = -1 // gateway.rate 0: unlimited
	}
	for _, k := range keys {
		o.Keys = append(o.Keys, gateway.Key{Name: k.Name, Secret: k.Secret})
	}
	if j := cfg.Gateway.JWT; j.JWKSURL != "" {
		o.JWT = &gateway.JWTOptions{JWKSURL: j.JWKSURL, Audience: j.Audience, Issuer: j.Issuer, Claim: j.Claim, Refresh: j.Refresh}
	}
	g, err := gateway.New(o)
	if err != nil {
		return err
	}
	addr, err := g.Listen(cfg.Gateway.Listen)
	if err != nil {
		return err
	}
	if err := h.Add(node.TierEntry, "gateway", g); err != nil {
		return err
	}
	e.Log.Info("gateway serving", zap.Stringer("addr", addr), zap.Strings("callers", names))
	if _, err := fmt.Fprintf(e.Out, "gateway: http://%s\n", addr); err != nil {
		return err
	}
	return nil
}
