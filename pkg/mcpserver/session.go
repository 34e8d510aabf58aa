// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/tools"
)

// Session is one MCP session's server, bound to one a2a session.
type Session struct {
	srv    *Server
	id     string
	prefix string // memory.SessionPrefix(id)
	set    Tools
	mcp    *mcp.Server
	parent context.Context

	mu       sync.Mutex
	watching bool
	closed   bool
	cancel   context.CancelFunc
	done     chan struct{} // closed when the watcher returns
}

// NewSession binds a new MCP server to the a2a session of the options (or
// a fresh one): every tool of the set, the result resource template and
// its subscriptions. ctx bounds the session's watcher.
func (s *Server) NewSession(ctx context.Context) (*Session, error) {
	id := s.opts.SessionID
	if id == "" {
		id = newSessionID()
	}
	prefix, err := memory.SessionPrefix(id)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: session %q: %w", id, err)
	}
	set, err := s.opts.NewTools(id, nil)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: tools of session %q: %w", id, err)
	}
	sess := &Session{srv: s, id: id, prefix: prefix, set: set, parent: ctx}
	sess.mcp = mcp.NewServer(&mcp.Implementation{Name: "a2abus", Title: "a2abus agent mesh", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: "Tools to list the agents on the a2abus mesh, invoke them and read their results. " +
			"A result is also the resource a2a://<memoryKey>: subscribe to it to be told when it lands.",
		SubscribeHandler:   sess.subscribe,
		UnsubscribeHandler: sess.unsubscribe,
	})
	sess.mcp.AddReceivingMiddleware(notFoundCodes)
	for _, t := range set.Tools() {
		sess.mcp.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.Parameters)}, sess.handler(t.Name))
	}
	sess.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "task-result", Title: "Result of an agent task", URITemplate: ResultTemplate, MIMEType: "application/json",
		Description: "The stored result of a task invoked in this session: a2a:// followed by the memoryKey invoke_agent returned.",
	}, sess.read)
	s.log.Debug("mcp session opened", zap.String("session", id))
	return sess, nil
}

// ID is the a2a session the MCP session is bound to.
func (s *Session) ID() string { return s.id }

// MCP is the session's MCP server, to connect to a transport.
func (s *Session) MCP() *mcp.Server { return s.mcp }

// Close stops the session's watcher and waits for it; it is idempotent.
func (s *Session) Close() {
	s.mu.Lock()
	s.closed = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// handler calls the tool called name through the set, within the call's
// bound; a failure is an isError result (tools.ErrorResult).
func (s *Session) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := bytes.TrimSpace(req.Params.Arguments)
		if bytes.Equal(args, []byte("null")) {
			args = nil
		}
		bound := s.srv.opts.CallTimeout
		if waits(args) {
			bound += s.srv.opts.WaitTimeout
		}
		callCtx, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		set, err := s.callSet(req)
		if err != nil {
			return s.failed(name, err), nil
		}
		out, err := set.Dispatch(callCtx, name, args)
		if err != nil {
			return s.failed(name, s.srv.explain(callCtx, err, bound)), nil
		}
		return s.succeeded(out), nil
	}
}

// callSet is the session's set, or, when the call asks for progress, a set
// whose status updates become progress notifications of this call.
func (s *Session) callSet(req *mcp.CallToolRequest) (Tools, error) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return s.set, nil
	}
	p := &progress{session: req.Session, token: token, log: s.srv.log}
	set, err := s.srv.opts.NewTools(s.id, p.status)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: tools of session %q: %w", s.id, err)
	}
	return set, nil
}

// waits reports whether a call's arguments ask to wait for the task.
func waits(args json.RawMessage) bool {
	var a struct {
		Wait bool `json:"wait"`
	}
	return len(args) > 0 && json.Unmarshal(args, &a) == nil && a.Wait
}

func (s *Session) failed(name string, err error) *mcp.CallToolResult {
	s.srv.log.Info("mcp tool call failed", zap.String("session", s.id), zap.String("tool", name), zap.Error(err))
	body := tools.ErrorResult(err)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: body}
}

// succeeded is the tool's JSON as text (and as structured content when it
// is an object), with a link to the result resource when it names a
// memoryKey of this session.
func (s *Session) succeeded(out json.RawMessage) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}
	if len(out) == 0 || out[0] != '{' {
		return res
	}
	res.StructuredContent = out
	var named struct {
		TaskID    string `json:"taskId"`
		MemoryKey string `json:"memoryKey"`
	}
	if json.Unmarshal(out, &named) != nil || named.MemoryKey == "" {
		return res
	}
	if key, err := ResultKey(ResultURI(named.MemoryKey)); err == nil && s.owns(key) {
		res.Content = append(res.Content, &mcp.ResourceLink{
			URI: ResultURI(key), Name: "result-" + named.TaskID, Title: "Result of task " + named.TaskID, MIMEType: "application/json",
			Description: "The task's result once it lands; subscribe to be notified.",
		})
	}
	return res
}

// owns reports whether key belongs to the session.
func (s *Session) owns(key string) bool {
	return strings.HasPrefix(key, s.prefix)
}

// readBound bounds a resource read and a watcher start.
func (s *Session) readBound() time.Duration { return s.srv.opts.CallTimeout }
