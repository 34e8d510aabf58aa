// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package mcpserver serves the a2abus tools to any MCP host (desktop
// assistants, IDE agents, agent frameworks) with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), over stdio or streamable HTTP.
//
// It is generic over the tool set the chat loop uses (pkg/tools): every tool
// of the set becomes an MCP tool with the set's own name, description and
// JSON Schema; a call goes through the set's Dispatch, and a failed call is
// an MCP tool error (isError) whose text is tools.ErrorResult — the same
// {"error":{"code","message","retryable"}} and codes the chat loop feeds its
// model and the CLI prints. A tool added to pkg/tools appears here with no
// change.
//
// A task's result is also an MCP resource: its URI is "a2a://" followed by
// its working-memory key (ResultURI), readable with resources/read, and a
// resources/subscribe on it is notified (notifications/resources/updated)
// when the caller's notification turn for the task lands in the session's
// conversation: while the task waits for input the resource holds its
// agent's question (state input-required, question, answerBy), answered
// with invoke_agent and task_id, and it is updated again with the outcome.
// Progress notifications reach a call that sent a progress token through
// the StatusFunc handed to Options.NewTools.
//
// Each MCP session is bound to one a2a session (Options.SessionID, or a
// fresh "mcp-<random>" per MCP session): its tasks' results are notified
// into it, and it reads only its own keys.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/tools"
)

// Defaults of Options.
const (
	// DefaultCallTimeout bounds a tool call that does not wait for its task.
	DefaultCallTimeout = 30 * time.Second
	// DefaultWaitTimeout bounds a call with "wait": true beyond CallTimeout.
	DefaultWaitTimeout = 5 * time.Minute
	// DefaultIdleTimeout closes an HTTP session that sent nothing for this long.
	DefaultIdleTimeout = 10 * time.Minute
	// DefaultMaxSessions bounds the HTTP sessions open at once.
	DefaultMaxSessions = 100
	// SessionPrefix starts every fresh a2a session id the server makes.
	SessionPrefix = "mcp-"
)

// Sentinel errors of the package.
var (
	// ErrInvalidOptions: New was given incomplete or invalid options.
	ErrInvalidOptions = errors.New("mcpserver: invalid options")
)

// Tools is what the server serves: a tool set bound to one a2a session.
// *tools.Set implements it.
type Tools interface {
	// Tools lists the tools with their names, descriptions and schemas.
	Tools() []tools.Tool
	// Dispatch calls the tool called name with args (a JSON object).
	Dispatch(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// StatusFunc receives the status updates of a task a tool call waits for.
type StatusFunc func(taskID string, st *a2a.TaskStatus)

// ToolsFunc binds the tools to the a2a session sessionID. progress is nil,
// or receives the status updates of the tasks the calls of this set wait
// for (SetTools connects it to the tool set).
type ToolsFunc func(sessionID string, progress StatusFunc) (Tools, error)

// Memory is what the server reads of working memory: results (resources),
// the session's conversation (notification turns) and a health check.
// A memory.Memory is one.
type Memory interface {
	// Get returns the value of key, or an error wrapping memory.ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Turns returns the turns of session with Seq > afterSeq.
	Turns(ctx context.Context, session string, afterSeq int64, limit int) ([]memory.Turn, error)
	// SubscribeTurns delivers the turns of session with Seq > afterSeq as they are appended.
	SubscribeTurns(ctx context.Context, session string, afterSeq int64) (<-chan memory.Turn, error)
	// Ping checks that the backend answers.
	Ping(ctx context.Context) error
}

// Options configure a Server.
type Options struct {
	// NewTools binds the tool set to an a2a session. Required.
	NewTools ToolsFunc
	// Memory serves the result resources and their subscriptions. Required.
	Memory Memory
	// SessionID is the a2a session of every MCP session; "" gives each MCP
	// session a fresh one (SessionPrefix + random).
	SessionID string
	// CallTimeout bounds a tool call (DefaultCallTimeout when 0); a call whose
	// arguments hold "wait": true has WaitTimeout more (DefaultWaitTimeout when 0).
	CallTimeout, WaitTimeout time.Duration
	// IdleTimeout closes an HTTP session idle for this long (DefaultIdleTimeout when 0).
	IdleTimeout time.Duration
	// MaxSessions bounds the HTTP sessions open at once (DefaultMaxSessions
	// when 0): a request that would open one more is refused.
	MaxSessions int
	// Version is the server version announced to clients ("" for "dev").
	Version string
	// Logger receives one line per failed call and per session; nil means no logging.
	Logger *zap.Logger
}

// Server makes one MCP server per MCP session over a shared tool factory
// and working memory. It is safe for concurrent use.
type Server struct {
	opts Options
	log  *zap.Logger
}

// New checks opts and returns a Server. A missing NewTools or Memory, or an
// invalid SessionID, is an error wrapping ErrInvalidOptions.
func New(opts Options) (*Server, error) {
	var missing []string
	if opts.NewTools == nil {
		missing = append(missing, "NewTools")
	}
	if opts.Memory == nil {
		missing = append(missing, "Memory")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrInvalidOptions, strings.Join(missing, ", "))
	}
	if opts.SessionID != "" {
		if err := a2a.ValidateSessionID(opts.SessionID); err != nil {
			return nil, fmt.Errorf("%w: SessionID: %w", ErrInvalidOptions, err)
		}
	}
	for name, d := range map[string]time.Duration{"CallTimeout": opts.CallTimeout, "WaitTimeout": opts.WaitTimeout, "IdleTimeout": opts.IdleTimeout} {
		if d < 0 {
			return nil, fmt.Errorf("%w: %s must not be negative, got %s", ErrInvalidOptions, name, d)
		}
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.WaitTimeout == 0 {
		opts.WaitTimeout = DefaultWaitTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	switch {
	case opts.MaxSessions < 0:
		return nil, fmt.Errorf("%w: MaxSessions must not be negative, got %d", ErrInvalidOptions, opts.MaxSessions)
	case opts.MaxSessions == 0:
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Server{opts: opts, log: log}, nil
}

// Run serves one MCP session on t (an mcp.StdioTransport, an in-memory
// transport in tests) until the client leaves or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	sess, err := s.NewSession(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	err = sess.MCP().Run(ctx, t)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) { // not the client leaving
		return fmt.Errorf("mcpserver: session %s: %w", sess.ID(), err)
	}
	return nil
}

// newSessionID returns a fresh a2a session id.
func newSessionID() string {
	return SessionPrefix + strings.ToLower(rand.Text()[:16])
}
