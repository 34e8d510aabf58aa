// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
)

// queueLookTimeout bounds the look at the task queues of one page of agents.
const queueLookTimeout = 3 * time.Second

// queueLooks is how many task queues are looked at at once.
const queueLooks = 8

// agentRow is one agent of the agents page.
type agentRow struct {
	directory.Entry
	Signed bool
	// OnDemand: tasks wait in its queue and no instance runs: an agent
	// started per task (a KEDA ScaledJob), or one that is down.
	OnDemand bool
	Queue    queueInfo
}

// queueInfo is what the broker says of an agent's task queue.
type queueInfo struct {
	Name      string
	Known     bool // the broker answered
	Missing   bool // the queue does not exist yet
	Messages  int
	Consumers int
}

type agentsData struct {
	Query  string
	Agents []agentRow
	Pager  pager
	Counts map[string]int
	Queues bool
}

// agentsPage lists one page of the directory's agents, filtered by ?q=.
func (c *Console) agentsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	all := c.opts.Directory.List(directory.Filter{Query: q})
	p := paginate(r, len(all), c.opts.PageSize)
	d := agentsData{Query: q, Pager: p, Counts: map[string]int{}, Queues: c.opts.Queues != nil}
	for _, e := range all {
		d.Counts[string(e.Status)]++
	}
	d.Agents = c.agentRows(r.Context(), all[p.From:p.To])
	c.render(w, "agents", "Agents", d)
}

// agentRows adds to entries their signature and their task queue.
func (c *Console) agentRows(ctx context.Context, entries []directory.Entry) []agentRow {
	rows := make([]agentRow, len(entries))
	for i, e := range entries {
		_, signed := c.opts.Directory.PinnedKey(e.Name)
		rows[i] = agentRow{Entry: e, Signed: signed}
		if spec, err := bus.TaskQueue(e.Name); err == nil {
			rows[i].Queue.Name = spec.Name
		}
	}
	if c.opts.Queues == nil {
		return rows
	}
	ctx, cancel := context.WithTimeout(ctx, queueLookTimeout)
	defer cancel()
	var wg sync.WaitGroup
	sem := make(chan struct{}, queueLooks)
	for i := range rows {
		q := &rows[i].Queue
		if q.Name == "" {
			continue
		}
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			st, err := c.opts.Queues.Inspect(ctx, q.Name)
			switch {
			case err == nil:
				q.Known, q.Messages, q.Consumers = true, st.Messages, st.Consumers
			case isNoQueue(err):
				q.Known, q.Missing = true, true
			}
		})
	}
	wg.Wait()
	for i := range rows {
		q := rows[i].Queue
		rows[i].OnDemand = len(rows[i].Instances) == 0 && q.Known && !q.Missing && q.Messages > 0 && q.Consumers == 0
	}
	return rows
}

type agentData struct {
	Agent agentRow
}

// agentPage shows one agent: its card, skills with their input schemas,
// instances and task queue.
func (c *Console) agentPage(w http.ResponseWriter, r *http.Request) {
	e, ok := c.opts.Directory.Lookup(r.PathValue("name"))
	if !ok {
		http.Error(w, "console: no agent "+r.PathValue("name")+" in the directory", http.StatusNotFound)
		return
	}
	rows := c.agentRows(r.Context(), []directory.Entry{e})
	c.render(w, "agent", e.Name, agentData{Agent: rows[0]})
}

func isNoQueue(err error) bool { return errors.Is(err, bus.ErrNoQueue) }
