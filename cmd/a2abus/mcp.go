// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

type mcpFlags struct {
	httpAddr, session, callerName string
	directoryWait, callTimeout    time.Duration
	idleTimeout                   time.Duration
}

// newMCPCmd builds `a2abus mcp`: the a2abus tools as an MCP server.
func newMCPCmd(c *cli) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the agent mesh to MCP hosts: list agents, invoke them, read their results (stdio or HTTP)",
		Long: "Runs an MCP server (Model Context Protocol) with the tools of the chat loop — invoke_agent,\n" +
			"list_known_agents, get_from_working_memory, … — with the same schemas and error codes. A task's\n" +
			"result is also the resource a2a://<memoryKey>, readable and subscribable (notified when it lands).\n" +
			"It speaks MCP on stdin/stdout, or streamable HTTP with --http ADDR (the URL is printed on stdout).\n" +
			"Logs go to stderr. See docs/mcp.md.",
		Example: "  a2abus mcp\n" +
			"  a2abus mcp --http 127.0.0.1:8765 --session team-a\n" +
			"  claude mcp add a2abus -- a2abus mcp --amqp-url amqp://guest:guest@127.0.0.1:5672/",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in := cmd.InOrStdin()
			return c.withConfig(func(ctx context.Context, e *env, _ []string) error {
				if !cmd.Flags().Changed("directory-wait") {
					f.directoryWait = e.Config.Directory.VetWait
				}
				return runMCP(ctx, e, f, in)
			})(cmd, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.httpAddr, "http", "", "serve streamable HTTP on this address (host:port; port 0 picks one) at /mcp instead of stdio")
	fl.StringVar(&f.session, "session", "", "the a2a session every MCP session works in (default: a fresh mcp-<random> per MCP session)")
	fl.StringVar(&f.callerName, "caller", "", "caller name; results come back on agent.response.<caller> (default caller.name)")
	fl.DurationVar(&f.directoryWait, "directory-wait", directory.DefaultVetWait,
		"how long an agent the directory does not know yet may take to announce itself before invoke_agent refuses it (directory.vet_wait)")
	fl.DurationVar(&f.callTimeout, "call-timeout", mcpserver.DefaultCallTimeout, "bound of one tool call (a call with wait: true gets caller.max_timeout more)")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", 0, "close an HTTP session idle this long (default mcp.session_idle_timeout)")
	return cmd
}

func runMCP(ctx context.Context, e *env, f mcpFlags, in io.Reader) error {
	if f.directoryWait <= 0 || f.callTimeout <= 0 || f.idleTimeout < 0 {
		return errors.New("--directory-wait, --call-timeout and --idle-timeout must be positive")
	}
	if f.idleTimeout == 0 {
		f.idleTimeout = e.Config.MCP.SessionIdleTimeout
	}
	if f.session != "" {
		if err := a2a.ValidateSessionID(f.session); err != nil {
			return fmt.Errorf("--session: %w", err)
		}
	}
	cfg := e.Config
	if f.callerName != "" {
		cfg.Caller.Name = f.callerName
	}
	n, err := e.OpenNode(ctx, "a2abus-mcp-"+cfg.Caller.Name)
	if err != nil {
		return err
	}
	h := node.NewHost(n)
	if err := buildMCP(ctx, h, e, f, in); err != nil {
		return errors.Join(err, h.Close())
	}
	return h.Run(ctx)
}

// buildMCP adds the MCP server's parts to h: the host's directory (a
// Lister, for list_known_agents), the configuration's caller, and the
// server over stdio or HTTP, which stops first.
func buildMCP(ctx context.Context, h *node.Host, e *env, f mcpFlags, in io.Reader) error {
	cfg, n := e.Config, h.Node
	if f.httpAddr != "" {
		if _, err := n.StartOps(ctx); err != nil { // ops.listen: metrics, health, readiness (closed with the node)
			return err
		}
	}
	h.SetVetWait(f.directoryWait)
	d, err := h.Directory(node.Lister)
	if err != nil {
		return err
	}
	resolver, err := h.Resolver()
	if err != nil {
		return err
	}
	cl, err := h.Caller(cfg.Caller.Name)
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{
		NewTools: mcpserver.SetTools(tools.Deps{
			Caller: cl, Agents: tools.DirectoryLister{Directory: d}, Resolver: resolver, Memory: n.Memory, Logger: e.Log,
		}),
		Memory: n.Memory, SessionID: f.session, CallTimeout: f.callTimeout, WaitTimeout: cfg.Caller.MaxTimeout,
		IdleTimeout: f.idleTimeout, MaxSessions: cfg.MCP.MaxSessions, Version: version, Logger: e.Log,
	})
	if err != nil {
		return err
	}
	return h.Add(node.TierEntry, "mcp server", node.RunFunc(func(ctx context.Context) error {
		if f.httpAddr == "" {
			return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{e.Out}})
		}
		return serveMCPHTTP(ctx, e, srv, f.httpAddr)
	}))
}

// serveMCPHTTP serves srv at http://ADDR/mcp until ctx ends, within the
// http.* bounds, requiring the mcp.token when one is configured (and one
// beyond loopback unless mcp.insecure_no_auth); the URL is printed on
// stdout once the address is bound.
func serveMCPHTTP(ctx context.Context, e *env, srv *mcpserver.Server, addr string) error {
	cfg := e.Config
	var token string
	if cfg.MCP.HasToken() {
		t, err := cfg.MCP.BearerToken()
		if err != nil {
			return err
		}
		token = t
	}
	hs, err := srv.ListenHTTP(ctx, mcpserver.HTTPOptions{Addr: addr, Token: token, InsecureNoAuth: cfg.MCP.InsecureNoAuth, Limits: cfg.HTTP.Limits()})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.Out, "mcp: %s\n", hs.URL()); err != nil {
		return errors.Join(err, hs.Close())
	}
	return hs.Run(ctx)
}

// nopWriteCloser lets the MCP transport write to stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
