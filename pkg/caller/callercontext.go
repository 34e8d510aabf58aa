// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/llm"
)

// The caller's context per call. A Request may send the part of its
// session's conversation that a ContextFilter chooses (the request's
// callerContext), and narrow the tools (AllowedTools) and the model
// context budget (MaxContextTokens) the agent may use for the task. The
// agent's own configuration stays the ceiling: a caller narrows, never
// widens. A caller context too large for the request goes to working
// memory (memory.CallerContextKey) in the batch that records the task, and
// the request names its key.

// ContextFilter chooses the messages of the session's conversation that
// travel with a task, in this order: roles, age, the newest LastMessages,
// then the newest that fit the token budget (Request.MaxContextTokens, or
// DefaultCallerContextTokens), whole and in order.
type ContextFilter struct {
	// LastMessages keeps the newest N messages that pass the other
	// filters; 0 keeps them all (the token budget still applies).
	LastMessages int
	// Roles keeps the messages of these roles: user, assistant, system,
	// tool and notification (the caller's notification turns); none means
	// DefaultContextRoles.
	Roles []string
	// MaxAge keeps the messages at most this old; 0 keeps any age.
	MaxAge time.Duration
}

// Defaults of the caller's context.
const (
	// DefaultCallerContextTokens bounds the caller context sent when the
	// Request sets no MaxContextTokens (estimated tokens: llm.EstimateTokens).
	DefaultCallerContextTokens = 4000
	// RoleNotification is the role of the notification turns the caller
	// appends to a conversation (meta kind KindNotification).
	RoleNotification = "notification"
)

// DefaultContextRoles are the roles a ContextFilter keeps when it names none.
var DefaultContextRoles = []string{memory.RoleUser, memory.RoleAssistant}

// ContextRoles are the roles a ContextFilter may name.
var ContextRoles = []string{memory.RoleUser, memory.RoleAssistant, memory.RoleSystem, memory.RoleTool, RoleNotification}

// checkNarrowing validates what req sets of the caller's context and narrowing.
func checkNarrowing(req Request) error {
	if req.MaxContextTokens < 0 {
		return fmt.Errorf("%w: maxContextTokens %d is negative", ErrInvalidRequest, req.MaxContextTokens)
	}
	for i, tool := range req.AllowedTools {
		if err := a2a.ValidateToolName(tool); err != nil {
			return fmt.Errorf("%w: allowedTools[%d]: %w", ErrInvalidRequest, i, err)
		}
	}
	f := req.CallerContext
	if f == nil {
		return nil
	}
	if f.LastMessages < 0 {
		return fmt.Errorf("%w: callerContext: lastMessages %d is negative", ErrInvalidRequest, f.LastMessages)
	}
	if f.MaxAge < 0 {
		return fmt.Errorf("%w: callerContext: maxAge %s is negative", ErrInvalidRequest, f.MaxAge)
	}
	for _, r := range f.Roles {
		if !slices.Contains(ContextRoles, r) {
			return fmt.Errorf("%w: callerContext: unknown role %q; the roles are %s", ErrInvalidRequest, r, strings.Join(ContextRoles, ", "))
		}
	}
	return nil
}

// callerContext reads session's conversation and keeps what f chooses,
// within maxTokens (DefaultCallerContextTokens when 0).
func (c *Caller) callerContext(ctx context.Context, session string, f *ContextFilter, maxTokens int, now time.Time) (*a2a.CallerContext, error) {
	turns, err := c.opts.Memory.Turns(ctx, session, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("caller %q: read the conversation of session %s for the caller context: %w", c.opts.Name, session, err)
	}
	msgs := FilterContext(turns, *f, maxTokens, now)
	return &a2a.CallerContext{Messages: msgs, Count: len(msgs)}, nil
}

// FilterContext is what filter f keeps of turns (a session's conversation,
// oldest first) within maxTokens estimated tokens (DefaultCallerContextTokens
// when 0) and a2a.MaxCallerContextMessages, oldest first. It is pure.
func FilterContext(turns []memory.Turn, f ContextFilter, maxTokens int, now time.Time) []a2a.ContextMessage {
	roles := f.Roles
	if len(roles) == 0 {
		roles = DefaultContextRoles
	}
	if maxTokens <= 0 {
		maxTokens = DefaultCallerContextTokens
	}
	var kept []memory.Turn
	for _, t := range turns {
		if !slices.Contains(roles, TurnRole(t)) || (f.MaxAge > 0 && !t.Time.After(now.Add(-f.MaxAge))) {
			continue
		}
		kept = append(kept, t)
	}
	limit := a2a.MaxCallerContextMessages
	if f.LastMessages > 0 {
		limit = min(limit, f.LastMessages)
	}
	if len(kept) > limit {
		kept = kept[len(kept)-limit:]
	}
	first, tokens := len(kept), 0
	for i := len(kept) - 1; i >= 0; i-- {
		n := llm.EstimateTokens(kept[i].Content)
		if tokens+n > maxTokens {
			break
		}
		tokens, first = tokens+n, i
	}
	out := make([]a2a.ContextMessage, 0, len(kept)-first)
	for _, t := range kept[first:] {
		out = append(out, a2a.ContextMessage{Role: TurnRole(t), Text: t.Content, Time: t.Time.UTC()})
	}
	return out
}

// TurnRole is the role of a conversation turn as a ContextFilter sees it:
// RoleNotification for the caller's notification turns, else its role.
func TurnRole(t memory.Turn) string {
	if t.Meta[MetaKind] == KindNotification {
		return RoleNotification
	}
	return t.Role
}

// spillCallerContext moves tr's inline caller context to working memory
// (memory.CallerContextKey) and leaves its key in its place: the write to
// make before the request is sent, or false when there is nothing to move.
func (c *Caller) spillCallerContext(tr *a2a.TaskRequest) (memory.Op, bool, error) {
	cc := tr.CallerContext
	if cc == nil || len(cc.Messages) == 0 {
		return memory.Op{}, false, nil
	}
	key, err := memory.CallerContextKey(tr.SessionID, tr.TaskID)
	if err != nil {
		return memory.Op{}, false, err
	}
	b, err := json.Marshal(a2a.StoredCallerContext{Messages: cc.Messages})
	if err != nil {
		return memory.Op{}, false, fmt.Errorf("caller %q: encode the caller context of task %s: %w", c.opts.Name, tr.TaskID, err)
	}
	// It must outlive the turn and a wait for an answer to a question.
	ttl := time.Until(tr.Deadline) + c.opts.InputTimeout + c.opts.ResultTTL
	tr.CallerContext = &a2a.CallerContext{Key: key, Count: cc.Count}
	return memory.SetOp(key, b, ttl), true, nil
}
