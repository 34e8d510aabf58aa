// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Bounds of the following of tasks.
const (
	// MaxFollowed is how many tasks of one Set are followed at once; a task
	// invoked beyond it is not followed (task_status then shows no status update).
	MaxFollowed = 256
	// maxDelivered is how many ids of tasks whose outcome was returned inline are remembered.
	maxDelivered = 1024
	// closeWait bounds Set.Close's wait for the followers.
	closeWait = 5 * time.Second
)

// tracker follows the tasks a Set invoked through a Watcher: it keeps the
// latest status update of each until its outcome, and the ids of the tasks
// whose outcome invoke_agent returned inline.
type tracker struct {
	ctx    context.Context // ends with close: the followers stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	following int
	latest    map[string]*a2a.TaskStatus // task id → latest status update (followed tasks only)
	delivered map[string]bool
	order     []string // delivered ids, oldest first
}

func newTracker() *tracker {
	ctx, cancel := context.WithCancel(context.Background())
	return &tracker{ctx: ctx, cancel: cancel, latest: map[string]*a2a.TaskStatus{}, delivered: map[string]bool{}}
}

// canFollow reports whether a task invoked now can be followed.
func (t *tracker) canFollow() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.closed && t.following < MaxFollowed
}

// reserve takes a follower slot; false when the tracker is closed or full.
func (t *tracker) reserve() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.following >= MaxFollowed {
		return false
	}
	t.following++
	t.wg.Add(1)
	return true
}

// release gives back a slot reserve took, once its task is no longer followed.
func (t *tracker) release(taskID string) {
	t.forget(taskID)
	t.mu.Lock()
	t.following--
	t.mu.Unlock()
	t.wg.Done()
}

// forget drops the latest status of a task no longer followed.
func (t *tracker) forget(taskID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.latest, taskID)
}

// observe records st as the latest status update of its task.
func (t *tracker) observe(taskID string, st *a2a.TaskStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.latest[taskID] == nil || !st.Time.Before(t.latest[taskID].Time) {
		t.latest[taskID] = st
	}
}

// status returns the latest status update of a followed task, or nil.
func (t *tracker) status(taskID string) *a2a.TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.latest[taskID]
}

// markDelivered remembers that a task's outcome was returned inline.
func (t *tracker) markDelivered(taskID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.delivered[taskID] {
		return
	}
	if len(t.order) >= maxDelivered {
		delete(t.delivered, t.order[0])
		t.order = t.order[1:]
	}
	t.delivered[taskID] = true
	t.order = append(t.order, taskID)
}

func (t *tracker) isDelivered(taskID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.delivered[taskID]
}

// close stops the followers and waits for them, at most closeWait.
func (t *tracker) close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeWait):
	}
	return nil
}

// onStatus is the StatusFunc of a task invoke_agent follows: it records
// the update and passes it to Deps.OnStatus.
func (s *Set) onStatus(taskID string) caller.StatusFunc {
	return func(st *a2a.TaskStatus) {
		s.tasks.observe(taskID, st)
		if s.deps.OnStatus != nil {
			s.deps.OnStatus(taskID, st)
		}
	}
}

// follow waits for the outcome of a watched task in the background,
// recording its status updates, until the outcome, Close, or the caller's
// own end (a task unanswered past its deadline gets its TIMEOUT); when the
// Set is closed or follows MaxFollowed tasks already, it stops watching.
func (s *Set) follow(w *caller.Watch) {
	taskID := w.Invocation().TaskID
	if !s.tasks.reserve() { // closed or full: not followed
		w.Close()
		s.tasks.forget(taskID)
		return
	}
	go func() {
		defer s.tasks.release(taskID)
		defer w.Close()
		if _, err := w.Wait(s.tasks.ctx, s.onStatus(taskID)); err != nil && s.tasks.ctx.Err() == nil {
			s.deps.Logger.Debug("task no longer followed", zap.String("task", taskID), zap.Error(err))
		}
	}()
}

// Delivered reports whether invoke_agent returned the outcome of task
// taskID inline ("wait"): the notification of that task, which still comes,
// tells the model nothing new. The last 1024 such tasks are remembered.
func (s *Set) Delivered(taskID string) bool { return s.tasks.isDelivered(taskID) }
