// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// keepAlive is how often an idle event stream gets a comment line.
const keepAlive = 15 * time.Second

// taskEvent is a task's change as the page's script reads it.
type taskEvent struct {
	TaskID   string `json:"taskId"`
	Caller   string `json:"caller,omitempty"`
	Agent    string `json:"agent"`
	Skill    string `json:"skill,omitempty"`
	State    string `json:"state"`
	Code     string `json:"code,omitempty"`
	Created  string `json:"created,omitempty"`
	InFlight bool   `json:"inFlight,omitempty"`
}

// turnEvent is a new conversation turn.
type turnEvent struct {
	Seq          int64  `json:"seq"`
	Role         string `json:"role"`
	Content      string `json:"content"`
	Time         string `json:"time"`
	Notification bool   `json:"notification,omitempty"`
}

// sessionEvents streams a session's changes as server-sent events from
// ?after=SEQ: "turn" for each new conversation turn, "task" for each task
// that starts (read from the pending indexes of the watched callers, every
// PollInterval) or ends (its notification turn, with its error code from
// the stored result). The data is JSON; the page's script shows it as text.
func (c *Console) sessionEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := memory.ValidateSessionID(id); err != nil {
		http.Error(w, "console: "+err.Error(), http.StatusBadRequest)
		return
	}
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	ctx := r.Context()
	turns, err := c.opts.Memory.SubscribeTurns(ctx, id, max(after, 0))
	if err != nil {
		c.fail(w, "follow session "+id, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	send := func(event string, v any) bool {
		b, err := json.Marshal(v)
		if err == nil {
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		}
		return err == nil && rc.Flush() == nil
	}
	if _, err := fmt.Fprint(w, ": following\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	known := map[string]bool{} // tasks already sent, or read and not of this session: not read again
	callers, err := c.followedCallers(ctx, id)
	if err != nil {
		c.fail(w, "follow session "+id, err)
		return
	}
	poll := time.NewTicker(c.opts.PollInterval)
	defer poll.Stop()
	idle := time.NewTicker(keepAlive)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.ctx.Done():
			return
		case t, ok := <-turns:
			if !ok {
				return
			}
			tt := toTurn(t)
			if !send("turn", turnEvent{Seq: t.Seq, Role: t.Role, Content: redact.String(t.Content), Time: t.Time.UTC().Format(time.RFC3339Nano), Notification: tt.Notification}) {
				return
			}
			if tt.Notification && tt.TaskID != "" {
				known[tt.TaskID] = true
				if !send("task", c.endedTask(r, id, t)) {
					return
				}
			}
		case <-poll.C:
			started, err := c.inFlight(ctx, callers, func(t string) bool { return known[t] }, func(rec *caller.Record) bool {
				known[rec.TaskID] = rec.SessionID != id // another session's task is not read again
				return rec.SessionID == id
			})
			if err != nil {
				continue // working memory failed: the next tick tries again
			}
			for _, t := range started {
				known[t.ID] = true
				if !send("task", taskEvent{TaskID: t.ID, Caller: t.Caller, Agent: t.Target, Skill: t.Skill, State: t.State,
					Created: t.Created.UTC().Format(time.RFC3339Nano), InFlight: true}) {
					return
				}
			}
		case <-idle.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

// followedCallers are the callers whose unfinished tasks a live view of
// session reads: the watched ones and those of its call history.
func (c *Console) followedCallers(ctx context.Context, session string) ([]string, error) {
	hist, err := caller.History(ctx, c.opts.Memory, session)
	if err != nil {
		return nil, err
	}
	return c.callersOf(hist), nil
}

// endedTask is the event of the task a notification turn reports.
func (c *Console) endedTask(r *http.Request, session string, t memory.Turn) taskEvent {
	ev := taskEvent{TaskID: memory.MetaValue(t.Meta, caller.MetaTaskID), Agent: memory.MetaValue(t.Meta, caller.MetaAgent),
		State: shortState(a2a.TaskState(memory.MetaValue(t.Meta, caller.MetaState)))}
	if res, err := loadResult(r.Context(), c.opts.Memory, session, ev.Agent, ev.TaskID); err == nil && res != nil {
		ev.Skill, ev.Caller = res.Skill, res.Caller
		if res.Error != nil {
			ev.Code = string(res.Error.Code)
		}
	}
	if slices.Contains([]string{"", "unspecified"}, ev.State) {
		ev.State = "unknown"
	}
	return ev
}
