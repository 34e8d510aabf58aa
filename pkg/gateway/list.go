// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// taskIndex keeps, per principal, the tasks the gateway sent for it,
// newest first (memory.GatewayTasksIndex, scored by minus the Unix
// microsecond they were sent), bounded to its max latest: every trimEvery
// additions of a process cut the indexes they touched back to max (a
// trim reads up to max+4·trimEvery members, so it is made rarely: between
// trims a list grows past max by up to trimEvery per replica).
//
// Additions are group-committed: add queues one and returns a channel
// closed once it is written (the send waits for it before it answers, so a
// replica killed after answering has listed the task); one writer at a
// time takes everything queued and writes it
// in one batch, so a burst of sends costs a round trip or two, not one
// each. ListTasks first waits until this process's queued additions are
// written (sync); another replica's are within a round trip of its sends.
type taskIndex struct {
	mem  memory.Memory
	max  int
	log  func(error)
	adds int // additions queued since the last trim

	mu      sync.Mutex
	idle    *sync.Cond // signalled when the writer stops
	pending []memory.Op
	waiting []chan struct{} // closed when pending is written
	touched map[string]bool // indexes written since the last trim
	writing bool
}

// trimEvery is how many additions of a process go between two trims.
const trimEvery = 256

func newTaskIndex(mem memory.Memory, max int, log func(error)) *taskIndex {
	t := &taskIndex{mem: mem, max: max, log: log, touched: map[string]bool{}}
	t.idle = sync.NewCond(&t.mu)
	return t
}

// add queues the listing of taskID for principal, sent at at; the channel
// it returns is closed when the batch holding it has been written (or has
// failed, which is logged: the task runs on, unlisted).
func (t *taskIndex) add(principal, taskID string, at time.Time) <-chan struct{} {
	done := make(chan struct{})
	idx, err := memory.GatewayTasksIndex(principal)
	if err != nil {
		t.log(err)
		close(done)
		return done
	}
	t.mu.Lock()
	t.pending = append(t.pending, memory.IndexAddOp(idx, taskID, -at.UnixMicro()))
	t.waiting = append(t.waiting, done)
	t.touched[idx] = true
	start := !t.writing
	t.writing = true
	t.mu.Unlock()
	if start {
		go t.write()
	}
	return done
}

// write writes what is queued, batch after batch, until nothing is.
func (t *taskIndex) write() {
	for {
		t.mu.Lock()
		ops, waiting := t.pending, t.waiting
		t.pending, t.waiting = nil, nil
		var trim []string
		if t.adds += len(ops); t.adds >= trimEvery {
			for idx := range t.touched {
				trim = append(trim, idx)
			}
			t.adds, t.touched = 0, map[string]bool{}
		}
		if len(ops) == 0 {
			t.writing = false
			t.idle.Broadcast()
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), registerTimeout)
		if _, err := t.mem.Batch(ctx, ops...); err != nil {
			t.log(fmt.Errorf("list %d tasks: %w", len(ops), err))
		}
		for _, done := range waiting {
			close(done)
		}
		for _, idx := range trim {
			if err := t.trim(ctx, idx); err != nil {
				t.log(fmt.Errorf("trim %s: %w", idx, err))
			}
		}
		cancel()
	}
}

// sync waits until the additions queued before it are written.
func (t *taskIndex) sync() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.writing {
		t.idle.Wait()
	}
}

// trim removes the entries past the max latest (at most 4·trimEvery at a time).
func (t *taskIndex) trim(ctx context.Context, idx string) error {
	members, err := t.mem.IndexRange(ctx, idx, 0, t.max+4*trimEvery)
	if err != nil || len(members) <= t.max {
		return err
	}
	ops := make([]memory.Op, 0, len(members)-t.max)
	for _, m := range members[t.max:] {
		ops = append(ops, memory.IndexRemoveOp(idx, m.Member))
	}
	_, err = t.mem.Batch(ctx, ops...)
	return err
}

// List bounds.
const (
	defaultPageSize = 50
	maxPageSize     = 100
	// scanPages bounds the entries one ListTasks looks at to this many
	// pages' worth: a filter that matches little answers a shorter page
	// with a token to go on.
	scanPages = 10
	// loadAtOnce is how many tasks are read from working memory at once.
	loadAtOnce = 16
)

// ListTasks implements a2asrv.RequestHandler: the principal's latest tasks
// of the agent of the URL, newest first, filtered by context, state and
// status time, a page at a time. The page token is opaque; totalSize
// counts the tasks of this page and the pages before it.
func (h *handler) ListTasks(ctx context.Context, req *spec.ListTasksRequest) (*spec.ListTasksResponse, error) {
	rq, err := h.call(ctx)
	if err != nil {
		return nil, err
	}
	size := req.PageSize
	switch {
	case size == 0:
		size = defaultPageSize
	case size < 1 || size > maxPageSize:
		return nil, invalidParams(fmt.Sprintf("pageSize must be within 1..%d, got %d", maxPageSize, size))
	}
	pos, seen, err := parsePageToken(req.PageToken)
	if err != nil {
		return nil, err
	}
	if req.Status != "" && !knownState(req.Status) {
		return nil, invalidParams(fmt.Sprintf("status %q is not a task state", req.Status))
	}
	idx, err := memory.GatewayTasksIndex(rq.principal)
	if err != nil {
		return nil, h.g.refusal(rq, "list tasks", err)
	}
	h.g.tasks.sync() // this process's latest sends are listed
	members, err := h.g.opts.Memory.IndexRange(ctx, idx, 0, pos+scanPages*size+1)
	if err != nil {
		return nil, h.g.refusal(rq, "list tasks", err)
	}
	more := len(members) > pos+scanPages*size
	members = members[min(pos, len(members)):min(len(members), pos+scanPages*size)]
	resp := &spec.ListTasksResponse{Tasks: []*spec.Task{}, PageSize: size}
	for start := 0; start < len(members) && len(resp.Tasks) < size; start += loadAtOnce {
		chunk := members[start:min(len(members), start+loadAtOnce)]
		for i, info := range loadTasks(ctx, rq.caller, chunk) {
			pos++
			if t := listed(info, rq, req); t != nil {
				resp.Tasks = append(resp.Tasks, t)
				if len(resp.Tasks) == size {
					more = more || start+i+1 < len(members)
					break
				}
			}
		}
	}
	if ctx.Err() != nil {
		return nil, h.g.refusal(rq, "list tasks", ctx.Err())
	}
	seen += len(resp.Tasks)
	resp.TotalSize = seen
	if more {
		resp.NextPageToken = fmt.Sprintf("%d.%d", pos, seen)
	}
	return resp, nil
}

// loadTasks reads the tasks of members at once; an entry whose record
// expired (or failed to load) is nil.
func loadTasks(ctx context.Context, c *caller.Caller, members []memory.IndexMember) []*caller.TaskInfo {
	out := make([]*caller.TaskInfo, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			if info, err := c.Task(ctx, m.Member); err == nil {
				out[i] = info
			}
		})
	}
	wg.Wait()
	return out
}

// listed is the task of info when the list request selects it, else nil.
func listed(info *caller.TaskInfo, rq *request, req *spec.ListTasksRequest) *spec.Task {
	if info == nil || !sameAgent(info.Target, rq.agent.Name) || (req.ContextID != "" && info.ContextID != req.ContextID) {
		return nil
	}
	t := infoTask(info)
	if req.Status != "" && t.Status.State != req.Status {
		return nil
	}
	if req.StatusTimestampAfter != nil && (t.Status.Timestamp == nil || !t.Status.Timestamp.After(*req.StatusTimestampAfter)) {
		return nil
	}
	if !req.IncludeArtifacts {
		t.Artifacts = nil
	}
	return t
}

var errPageToken = errors.New("the pageToken is not one this gateway gave")

func parsePageToken(tok string) (pos, seen int, err error) {
	if tok == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(tok, ".")
	pos, err1 := strconv.Atoi(a)
	seen, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || pos < 0 || seen < 0 || pos > 1<<20 {
		return 0, 0, invalidParams(errPageToken.Error())
	}
	return pos, seen, nil
}

func knownState(s spec.TaskState) bool {
	switch s {
	case spec.TaskStateSubmitted, spec.TaskStateWorking, spec.TaskStateInputRequired, spec.TaskStateAuthRequired,
		spec.TaskStateCompleted, spec.TaskStateCanceled, spec.TaskStateFailed, spec.TaskStateRejected:
		return true
	}
	return false
}
