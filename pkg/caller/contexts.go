// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Contexts. Every task has a context id (A2A's contextId): the Request's,
// or a new one. The caller keeps each context's history in working memory
// (memory.ContextHistoryKey, under the task's session): the request message
// and the final answer of every task of the context that finished, oldest
// first, at most Options.MaxContextMessages. A task invoked in a context
// that has a history carries it (TaskRequest.ContextHistory; the agent's
// Task.ContextHistory), and so does every later turn of the task.
//
// The history is written with the task's outcome, in the batch that
// stores it (no round trip of its own): the history the task carried,
// then its request and its answer. It is read once, when a task is invoked
// in a context given by its Request. So tasks of one context that overlap
// each write the history they started from plus their own messages: the
// last to finish wins, and the other's messages are not in it. A context
// lives Options.ResultTTL after its first task, as the task's result does;
// once a second task continued it, Options.ContextTTL (the conversation's
// TTL) after its latest.

// contextHistory is the JSON stored at a context's key.
type contextHistory struct {
	Messages []*a2a.Message `json:"messages"`
}

// loadContext returns the history of context id in session (nil when it has
// none, or context histories are off: Options.MaxContextMessages < 0).
func (c *Caller) loadContext(ctx context.Context, session, id string) ([]*a2a.Message, error) {
	if c.opts.MaxContextMessages <= 0 {
		return nil, nil
	}
	key, err := memory.ContextHistoryKey(session, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	var h contextHistory
	if _, err := getJSON(ctx, c.opts.Memory, key, &h); err != nil {
		return nil, fmt.Errorf("caller %q: read the history of context %q: %w", c.opts.Name, id, err)
	}
	return boundHistory(h.Messages, c.opts.MaxContextMessages, "context"), nil
}

// contextOp is the write that adds rec's request and the final outcome s
// to the history of the task's context; false when there is nothing to
// write (no context, or context histories are off).
func (c *Caller) contextOp(rec *Record, s *StoredResult) (memory.Op, bool) {
	if rec.ContextID == "" || rec.Message == nil || c.opts.MaxContextMessages <= 0 {
		return memory.Op{}, false
	}
	key, err := memory.ContextHistoryKey(rec.SessionID, rec.ContextID)
	if err != nil {
		return memory.Op{}, false // validated by Invoke
	}
	msgs := append(slices.Clip(rec.ContextHistory), rec.Message, answerMessage(s))
	b, err := json.Marshal(struct {
		Messages any `json:"messages"`
	}{a2a.MessagesMirror(boundHistory(msgs, c.opts.MaxContextMessages, "context"))})
	if err != nil {
		return memory.Op{}, false
	}
	ttl := c.opts.ResultTTL // a context nobody continued yet lives as its first task's result
	if len(rec.ContextHistory) > 0 {
		ttl = c.opts.ContextTTL
	}
	return memory.SetOp(key, b, ttl), true
}
