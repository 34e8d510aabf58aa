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
// microsecond they were sent), bounded to its max latest.
//
// A new task is listed in the batch that records it (its Request's
// RecordAlso is listing's ops): when the send answers, its task is listed
// (a replica killed after answering has listed it), at no round trip of
// its own. Every trimEvery additions of a process, one trim in the
// background cuts the indexes they touched back to max (a trim reads up to
// max+4·trimEvery members, so it is made rarely: between trims a list
// grows past max by up to trimEvery per replica).
type taskIndex struct {
	mem memory.Memory
	max int
	log func(error)
	now func() time.Time

	mu       sync.Mutex
	idle     *sync.Cond // signalled when a trim ends
	adds     int        // additions since the last trim
	touched  map[string]bool
	trimming bool
	keys     map[string]string // the principals' index keys (a fixed set: the gateway's callers)
}

// trimEvery is how many additions of a process go between two trims.
const trimEvery = 256

func newTaskIndex(mem memory.Memory, max int, now func() time.Time, log func(error)) *taskIndex {
	t := &taskIndex{mem: mem, max: max, now: now, log: log, touched: map[string]bool{}, keys: map[string]string{}}
	t.idle = sync.NewCond(&t.mu)
	return t
}

// listing is the listing of one new task of a principal.
type listing struct {
	t      *taskIndex
	idx    string
	taskID string // set once the op is made: the task's record batch holds it
}

// listing lists the new task a send is about to make for principal; nil
// (logged) when principal has no index: the task is sent unlisted.
func (t *taskIndex) listing(principal string) *listing {
	t.mu.Lock()
	idx, ok := t.keys[principal]
	t.mu.Unlock()
	if !ok {
		var err error
		if idx, err = memory.GatewayTasksIndex(principal); err != nil {
			t.log(err)
			return nil
		}
		t.mu.Lock()
		t.keys[principal] = idx
		t.mu.Unlock()
	}
	return &listing{t: t, idx: idx}
}

// ops is the Request.RecordAlso of the send: the task's addition to the
// list, sent now.
func (l *listing) ops(taskID string) []memory.Op {
	l.taskID = taskID
	l.t.added(l.idx)
	return []memory.Op{memory.IndexAddOp(l.idx, taskID, -l.t.now().UnixMicro())}
}

// unsent removes the task from the list when its record was written but
// the send failed (the caller withdrew the task), in the background.
func (l *listing) unsent() {
	if l != nil && l.taskID != "" {
		go l.remove()
	}
}

func (l *listing) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), registerTimeout)
	defer cancel()
	if _, err := l.t.mem.Batch(ctx, memory.IndexRemoveOp(l.idx, l.taskID)); err != nil {
		l.t.log(fmt.Errorf("unlist unsent task %s: %w", l.taskID, err))
	}
}

// added counts an addition to idx, and starts a trim every trimEvery.
func (t *taskIndex) added(idx string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.touched[idx] = true
	if t.adds++; t.adds < trimEvery || t.trimming {
		return
	}
	trim := make([]string, 0, len(t.touched))
	for idx := range t.touched {
		trim = append(trim, idx)
	}
	t.adds, t.touched, t.trimming = 0, map[string]bool{}, true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), registerTimeout)
		defer cancel()
		for _, idx := range trim {
			if err := t.trim(ctx, idx); err != nil {
				t.log(fmt.Errorf("trim %s: %w", idx, err))
			}
		}
		t.mu.Lock()
		t.trimming = false
		t.idle.Broadcast()
		t.mu.Unlock()
	}()
}

// sync waits until the trim under way, if any, has ended.
func (t *taskIndex) sync() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.trimming {
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
