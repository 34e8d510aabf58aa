// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// The result resources: a task's result is the resource whose URI is
// URIScheme followed by its working-memory key, the memoryKey invoke_agent
// returns: a2a://session/<session>/a2a/<agent>/<task>/result.
const (
	// URIScheme starts every result URI.
	URIScheme = "a2a://"
	// ResultTemplate is the URI template (RFC 6570) of the result resources.
	ResultTemplate = URIScheme + memory.ResultKeyTemplate
)

// ErrInvalidURI: a URI is not a result URI (see ResultTemplate).
var ErrInvalidURI = errors.New("mcpserver: not a result URI")

// CodeResourceNotFound is the JSON-RPC error code of a resources/read of a
// resource that is not there, as the MCP specification up to 2025-11-25
// says (every HTTP session, and the hosts of today). From 2026-07-28 on it
// requires Invalid Params (-32602) instead, which requests of those
// versions get.
const CodeResourceNotFound = -32002

// notFoundIsInvalidParamsSince is the first protocol version whose
// "resource not found" is Invalid Params, not CodeResourceNotFound.
const notFoundIsInvalidParamsSince = "2026-07-28"

// resourceNotFound is the "resource not found" error of uri, with the code
// of the request's protocol version and the URI in its data.
func resourceNotFound(req *mcp.ReadResourceRequest, uri string) error {
	code := int64(CodeResourceNotFound)
	if req.ProtocolVersion() >= notFoundIsInvalidParamsSince { // versions are dates: they sort as strings
		code = jsonrpc.CodeInvalidParams
	}
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: code, Message: "Resource not found", Data: data}
}

// sdkNotFound is the SDK's own "resource not found", which it answers for
// a URI no resource template matches.
var sdkNotFound = mcp.ResourceNotFoundError("").(*jsonrpc.Error)

// notFoundCodes is the middleware that gives the SDK's own "resource not
// found" the code of the request's protocol version too (resourceNotFound).
func notFoundCodes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if rr, ok := req.(*mcp.ReadResourceRequest); ok && errors.As(err, &je) && je.Code == sdkNotFound.Code && je.Message == sdkNotFound.Message {
			return nil, resourceNotFound(rr, rr.Params.URI)
		}
		return res, err
	}
}

// ResultURI is the URI of the result stored at memoryKey.
func ResultURI(memoryKey string) string { return URIScheme + memoryKey }

// ResultKey is the working-memory key of a result URI; a URI of another
// shape is an error wrapping ErrInvalidURI that says what is wrong.
func ResultKey(uri string) (string, error) {
	key, ok := strings.CutPrefix(uri, URIScheme)
	if !ok {
		return "", fmt.Errorf("%w: %q does not start with %q", ErrInvalidURI, uri, URIScheme)
	}
	if _, _, _, ok := memory.ParseResultKey(key); !ok {
		return "", fmt.Errorf("%w: %q is not of the form %s", ErrInvalidURI, uri, ResultTemplate)
	}
	return key, nil
}

// read serves resources/read of a result of this session. A result that
// is not there (yet), or of another session, is "resource not found"
// (resourceNotFound).
func (s *Session) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	key, err := ResultKey(uri)
	if err != nil || !s.owns(key) {
		return nil, resourceNotFound(req, uri)
	}
	ctx, cancel := context.WithTimeout(ctx, s.readBound())
	defer cancel()
	value, err := s.srv.opts.Memory.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, resourceNotFound(req, uri)
	}
	if err != nil {
		err = s.srv.explain(ctx, fmt.Errorf("read %s: %w", uri, err), s.readBound())
		s.srv.log.Info("mcp resource read failed", zap.String("session", s.id), zap.Error(err))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	// A resource goes to the MCP client's model, as a tool result does: redacted
	// even when the result is stored as sent (redact.stored_results: false).
	value = redact.Default().JSON(value)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(value)}}}, nil
}

// subscribe accepts a subscription to a result of this session (whether it
// landed or not) and makes sure the session's conversation is watched; a
// result that already landed is announced again (announceLanded).
func (s *Session) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if err := s.checkURI(req.Params.URI); err != nil {
		return err
	}
	if err := s.watch(ctx, req.Session); err != nil {
		return err
	}
	key, _ := ResultKey(req.Params.URI) // checked above
	if _, err := s.srv.opts.Memory.Get(ctx, key); err == nil {
		s.announceLanded(req.Params.URI)
	}
	return nil
}

// landedAnnouncements are when a result that landed before its subscription
// is announced, after the subscription: the SDK records a subscription only
// once its handler has returned, so the watcher's replay of the result's
// notification turn (or, for a later subscription, its having passed that
// turn already) can miss it. A client told twice re-reads the resource twice.
var landedAnnouncements = []time.Duration{20 * time.Millisecond, 200 * time.Millisecond, time.Second}

// announceLanded sends resources/updated for uri at each of
// landedAnnouncements, until the session ends.
func (s *Session) announceLanded(uri string) {
	go func() {
		for _, d := range landedAnnouncements {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-s.parent.Done():
				t.Stop()
				return
			}
			if err := s.mcp.ResourceUpdated(s.parent, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				s.srv.log.Debug("mcp: resource updated notification not sent", zap.String("uri", uri), zap.Error(err))
			}
		}
	}()
}

// unsubscribe accepts the end of a subscription to a URI subscribe would take.
func (s *Session) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	return s.checkURI(req.Params.URI)
}

func (s *Session) checkURI(uri string) error {
	key, err := ResultKey(uri)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if !s.owns(key) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%q is not a result of this session; its results start with %q", uri, ResultURI(s.prefix))}
	}
	return nil
}

// watch starts, once, the watcher of the session's conversation: every
// notification turn (caller.KindNotification) makes the subscribers of its
// result's URI notified. It replays the conversation from the start, so a
// result that landed before the subscription is notified too. The watcher
// ends with the MCP session ss, the server's context or Close. A memory
// that cannot be subscribed to is the subscription's error.
func (s *Session) watch(ctx context.Context, ss *mcp.ServerSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watching {
		return nil
	}
	if s.closed {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpserver: session closed"}
	}
	wctx, cancel := context.WithCancel(s.parent)
	subCtx, subCancel := context.WithTimeout(ctx, s.readBound())
	defer subCancel()
	turns, err := s.subscribeTurns(subCtx, wctx)
	if err != nil {
		cancel()
		err = s.srv.explain(subCtx, fmt.Errorf("watch the results of session %q: %w", s.id, err), s.readBound())
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	s.watching, s.cancel, s.done = true, cancel, make(chan struct{})
	if ss != nil {
		go func() {
			_ = ss.Wait()
			s.Close()
		}()
	}
	go s.forward(wctx, turns, s.done)
	return nil
}

// subscribeTurns subscribes, for the life of live, within the bound of
// start: a memory that does not answer fails the start, never hangs it.
func (s *Session) subscribeTurns(start, live context.Context) (<-chan memory.Turn, error) {
	type sub struct {
		ch  <-chan memory.Turn
		err error
	}
	got := make(chan sub, 1)
	go func() {
		ch, err := s.srv.opts.Memory.SubscribeTurns(live, s.id, 0)
		got <- sub{ch, err}
	}()
	select {
	case r := <-got:
		return r.ch, r.err
	case <-start.Done():
		go func() { // drain: the late subscription ends with live
			if r := <-got; r.err == nil {
				for range r.ch {
				}
			}
		}()
		return nil, fmt.Errorf("subscribe to the conversation: %w", start.Err())
	}
}

// forward turns notification turns into resources/updated notifications.
func (s *Session) forward(ctx context.Context, turns <-chan memory.Turn, done chan struct{}) {
	defer close(done)
	for t := range turns {
		if t.Meta[caller.MetaKind] != caller.KindNotification || memory.MetaValue(t.Meta, caller.MetaMemoryKey) == "" {
			continue
		}
		uri := ResultURI(memory.MetaValue(t.Meta, caller.MetaMemoryKey))
		if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.srv.log.Warn("mcp: resource updated notification not sent", zap.String("uri", uri), zap.Error(err))
		}
	}
	if ctx.Err() == nil {
		s.srv.log.Warn("mcp: the session's conversation is no longer watched (working memory closed)", zap.String("session", s.id))
	}
}
