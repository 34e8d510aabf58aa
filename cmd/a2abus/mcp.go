package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
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

// httpShutdownBound bounds the end of the HTTP server (open event streams included).
const httpShutdownBound = 5 * time.Second

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
	fl.DurationVar(&f.directoryWait, "directory-wait", config.DefaultVetWait,
		"how long an agent the directory does not know yet may take to announce itself before invoke_agent refuses it (directory.vet_wait)")
	fl.DurationVar(&f.callTimeout, "call-timeout", mcpserver.DefaultCallTimeout, "bound of one tool call (a call with wait: true gets caller.max_timeout more)")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", mcpserver.DefaultIdleTimeout, "close an HTTP session idle this long")
	return cmd
}

func runMCP(ctx context.Context, e *env, f mcpFlags, in io.Reader) error {
	if f.directoryWait <= 0 || f.callTimeout <= 0 || f.idleTimeout <= 0 {
		return errors.New("--directory-wait, --call-timeout and --idle-timeout must be positive")
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
		IdleTimeout: f.idleTimeout, Version: version, Logger: e.Log,
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

// serveMCPHTTP serves srv at http://ADDR/mcp until ctx ends; the URL is
// printed on stdout once the address is bound.
func serveMCPHTTP(ctx context.Context, e *env, srv *mcpserver.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		e.Log.Warn("mcp: serving HTTP beyond loopback without authentication: anyone who reaches it can invoke agents",
			zap.Stringer("addr", tcp))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler(ctx))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if _, err := fmt.Fprintf(e.Out, "mcp: http://%s/mcp\n", ln.Addr()); err != nil {
		_ = ln.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("mcp: serve http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), httpShutdownBound)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close() // open event streams do not end by themselves
	}
	return nil
}

// nopWriteCloser lets the MCP transport write to stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
