// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"net/http"
	"strconv"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

type sessionsData struct {
	Callers  []string
	InFlight []task
}

// sessionsPage opens a session by id and lists the sessions the watched
// callers have tasks in flight in.
func (c *Console) sessionsPage(w http.ResponseWriter, r *http.Request) {
	if id := r.URL.Query().Get("id"); id != "" {
		http.Redirect(w, r, "/sessions/"+id, http.StatusSeeOther)
		return
	}
	tasks, err := c.inFlight(r.Context(), c.opts.Callers, nil, func(*caller.Record) bool { return true })
	if err != nil {
		c.fail(w, "read the tasks in flight", err)
		return
	}
	c.render(w, "sessions", "Sessions", sessionsData{Callers: c.opts.Callers, InFlight: tasks})
}

// turn is one conversation turn as a page shows it.
type turn struct {
	memory.Turn
	Notification bool
	TaskID       string
}

func toTurn(t memory.Turn) turn {
	return turn{Turn: t, Notification: memory.MetaValue(t.Meta, caller.MetaKind) == caller.KindNotification,
		TaskID: memory.MetaValue(t.Meta, caller.MetaTaskID)}
}

type sessionData struct {
	ID        string
	Turns     []turn
	TurnPager pager
	LastSeq   int64
	Tasks     []task
	TaskPager pager
	Tree      []*node
	Bars      []bar
	Span      time.Duration
	Height    int
	Failed    int
	InFlight  int
}

// sessionPage shows a session: one page of its conversation (?turns=),
// one page of its tasks (?page=) with their waterfall, and the tree of
// calls of all its tasks. The page's script follows it live (sessionEvents).
func (c *Console) sessionPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := memory.ValidateSessionID(id); err != nil {
		http.Error(w, "console: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	tasks, err := c.sessionTasks(ctx, id)
	if err != nil {
		c.fail(w, "read the tasks of session "+id, err)
		return
	}
	d := sessionData{ID: id, Tree: callTree(tasks)}
	for _, t := range tasks {
		if t.Code != "" {
			d.Failed++
		}
		if t.InFlight {
			d.InFlight++
		}
	}
	d.TaskPager = paginate(r, len(tasks), c.opts.PageSize)
	d.Tasks = tasks[d.TaskPager.From:d.TaskPager.To]
	d.Bars, d.Span = waterfall(d.Tasks)
	d.Height = max(len(d.Bars)*barHeight, barHeight)

	// Turns: ?after=SEQ pages forward; the last page is the default, so
	// the newest turns show and the live view appends to them.
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	turns, err := c.opts.Memory.Turns(ctx, id, max(after, 0), 0)
	if err != nil {
		c.fail(w, "read the conversation of session "+id, err)
		return
	}
	d.TurnPager = pager{Total: len(turns)}
	if r.URL.Query().Get("after") == "" && len(turns) > c.opts.PageSize {
		turns = turns[len(turns)-c.opts.PageSize:]
		d.TurnPager.Prev = "/sessions/" + id + "?after=0"
	} else if len(turns) > c.opts.PageSize {
		turns = turns[:c.opts.PageSize]
		d.TurnPager.Next = "/sessions/" + id + "?after=" + strconv.FormatInt(turns[len(turns)-1].Seq, 10)
	}
	for _, t := range turns {
		d.Turns = append(d.Turns, toTurn(t))
	}
	if n := len(turns); n > 0 {
		d.LastSeq = turns[n-1].Seq
	}
	c.render(w, "session", "Session "+id, d)
}

type taskData struct {
	Session string
	Task    task
	Found   bool
	Result  *caller.StoredResult
	Text    string
	Parts   []string
}

// taskPage shows one task of a session and its stored result, redacted.
func (c *Console) taskPage(w http.ResponseWriter, r *http.Request) {
	session, id := r.PathValue("id"), r.PathValue("task")
	if err := memory.ValidateSessionID(session); err != nil {
		http.Error(w, "console: "+err.Error(), http.StatusBadRequest)
		return
	}
	t, found, err := c.sessionTask(r.Context(), session, id)
	if err != nil {
		c.fail(w, "read task "+id+" of session "+session, err)
		return
	}
	if !found {
		http.Error(w, "console: no task "+id+" in session "+session, http.StatusNotFound)
		return
	}
	d := taskData{Session: session, Task: t, Found: true}
	if d.Result, err = loadResult(r.Context(), c.opts.Memory, session, d.Task.Target, id); err != nil {
		c.fail(w, "read the result of task "+id, err)
		return
	}
	if d.Result != nil {
		d.Text = d.Result.Text()
		for _, a := range d.Result.Artifacts {
			if a != nil {
				d.Parts = append(d.Parts, a.Name+": "+artifactText(a))
			}
		}
	}
	c.render(w, "task", "Task "+id, d)
}

// artifactText is the text of an artifact's text parts.
func artifactText(a *a2a.Artifact) string { return a2a.MessageText(&a2a.Message{Parts: a.Parts}) }
