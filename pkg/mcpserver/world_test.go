// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// mesh is a world with SampleAgent running, a caller and a directory
// assembled through pkg/node as `a2abus mcp` does, and an MCP server on them.
type mesh struct {
	w      *testworld.World
	agent  string // SampleAgent's name in this world
	deps   tools.Deps
	server *mcpserver.Server
}

func newMesh(t *testing.T, w *testworld.World, opts mcpserver.Options) *mesh {
	t.Helper()
	return newMeshOn(t, w, w.Connect(t), opts)
}

// newMeshOn is newMesh with every part on the bus b.
func newMeshOn(t *testing.T, w *testworld.World, b bus.Bus, opts mcpserver.Options) *mesh {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy (policy.default stays deny)
	n, err := node.With(cfg, b, w.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := w.N("SampleAgent")
	sampletest.Start(t, b, name)
	d, stop, err := n.StartDirectory(ctx, node.Lister)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	resolver := directory.PatientResolver{Directory: d, Wait: 2 * time.Second}
	cl, err := n.Caller(w.N("McpCaller"), resolver)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, cl, caller.ErrClosed)

	m := &mesh{w: w, agent: name, deps: tools.Deps{Caller: cl, Agents: tools.DirectoryLister{Directory: d}, Resolver: resolver, Memory: w.Memory}}
	if opts.NewTools == nil {
		opts.NewTools = mcpserver.SetTools(m.deps)
	}
	if opts.Memory == nil {
		opts.Memory = w.Memory
	}
	m.server, err = mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// client is an MCP client session of the SDK on an in-memory transport,
// recording the notifications it receives.
type client struct {
	*mcp.ClientSession
	protocol string // latest or legacy
	mu       sync.Mutex
	updated  []string
	progress []*mcp.ProgressNotificationParams
}

// Protocol versions the tests speak: the SDK's latest (resources/subscribe
// rides on subscriptions/listen) and the legacy one most hosts speak today.
const (
	latest = ""
	legacy = "2025-11-25"
)

// connect runs one MCP session of srv and connects the SDK's client to it,
// speaking protocol (latest or legacy).
func connect(t *testing.T, srv *mcpserver.Server, protocol string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- srv.Run(ctx, st) }()
	c := &client{protocol: protocol}
	mc := mcp.NewClient(&mcp.Implementation{Name: "mcpserver-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.mu.Lock()
			c.updated = append(c.updated, req.Params.URI)
			c.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params)
			c.mu.Unlock()
		},
	})
	cs, err := mc.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c.ClientSession = cs
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("server Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server Run did not return after the client left")
		}
	})
	return c
}

func (c *client) updates() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.updated...)
}

func (c *client) progressSeen() []*mcp.ProgressNotificationParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), c.progress...)
}

// call calls a tool and returns its text content and whether it is an error.
func (c *client) call(t *testing.T, name string, args any) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content", name)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: first content is %T, want text", name, res.Content[0])
	}
	return text.Text, res.IsError, res
}

// errorCode is the code of an ErrorResult text.
func errorCode(t *testing.T, text string) string {
	t.Helper()
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &body); err != nil || body.Error.Code == "" {
		t.Fatalf("not a tool error result: %s (%v)", text, err)
	}
	return body.Error.Code
}
