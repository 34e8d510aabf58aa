// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// canceledMemory is how long an instance remembers a cancel for a task it
// is not running, so the task is skipped if it is dequeued later.
const canceledMemory = 10 * time.Minute

// runningTasks maps the tasks running in this instance to their cancel
// functions, and remembers recent cancels of tasks not (yet) running here.
// Only the task's own caller may cancel it. A run is one turn of a task
// (runKey): a cancel stops every turn of the task running here, and a task
// canceled stays canceled for every later turn.
type runningTasks struct {
	mu       sync.Mutex
	running  map[runKey]runningTask
	canceled map[string]canceledTask
}

// runKey names one run: a turn of a task (a task may have two runs at once
// here only when an earlier turn's request came again).
type runKey struct {
	id   string
	turn int
}

type runningTask struct {
	caller string
	cancel context.CancelCauseFunc
}

type canceledTask struct {
	caller string
	at     time.Time
}

func newRunningTasks() *runningTasks {
	return &runningTasks{running: map[runKey]runningTask{}, canceled: map[string]canceledTask{}}
}

// start registers run as running, unless its caller canceled its task
// before: the check and the registration are one step, so a cancel that
// arrives while the task is being started is either seen here or finds the
// task running (it reports false when the task must not start).
func (r *runningTasks) start(run runKey, caller string, cancel context.CancelCauseFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceledBy(run.id, caller) {
		return false
	}
	r.running[run] = runningTask{caller: caller, cancel: cancel}
	return true
}

func (r *runningTasks) remove(run runKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, run)
}

// cancel cancels the task if it runs here for caller, and remembers the
// cancel either way; it reports whether a running task was canceled.
func (r *runningTasks) cancel(id, caller string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetExpiredLocked(now)
	r.remember(id, caller, now)
	canceled := false
	for run, t := range r.running { // at most Concurrency runs
		if run.id == id && a2a.SameAgent(t.caller, caller) {
			t.cancel(errCanceledByCaller)
			canceled = true
		}
	}
	return canceled
}

// remember records that caller canceled task id at now. r.mu must be held.
func (r *runningTasks) remember(id, caller string, now time.Time) {
	r.canceled[id] = canceledTask{caller: caller, at: now}
}

// forgetExpired drops the remembered cancels older than canceledMemory.
func (r *runningTasks) forgetExpired(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetExpiredLocked(now)
}

// forgetExpiredLocked is forgetExpired with r.mu held.
func (r *runningTasks) forgetExpiredLocked(now time.Time) {
	for k, c := range r.canceled {
		if now.Sub(c.at) > canceledMemory {
			delete(r.canceled, k)
		}
	}
}

// load remembers cancels recorded elsewhere (the agent's cancel index in working memory).
func (r *runningTasks) load(cancels map[string]string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, caller := range cancels {
		r.remember(id, caller, now)
	}
}

// canceledBy reports whether caller canceled task id (a cancel remembered
// while it did not run here). r.mu must be held.
func (r *runningTasks) canceledBy(id, caller string) bool {
	c, ok := r.canceled[id]
	return ok && a2a.SameAgent(c.caller, caller)
}

// handleInstance consumes this instance's queue: task.cancel messages and
// directories' discovery queries (answered with an announcement at once).
func (a *Agent) handleInstance(ctx context.Context, d *bus.Delivery) error {
	p, err := a.opts.Codec.Decode(d.Envelope)
	if err != nil {
		a.log.Warn("undecodable instance message dropped", zap.String("type", string(d.Kind)), zap.String("message_id", d.MessageID), zap.Error(err))
		return d.Ack() // an exclusive queue has no dead-letter use; the error is logged
	}
	switch m := p.(type) {
	case *a2a.TaskCancel:
		if !a.cancelAllowed(d, m) { // identity.go
			break
		}
		if a.running.cancel(m.TaskID, m.Caller, a.opts.Now()) {
			a.log.Info("task cancel requested", zap.String("task", m.TaskID), zap.String("caller", m.Caller))
		}
	case *a2a.DiscoveryQuery:
		a.announce(ctx, false)
	}
	return d.Ack()
}

// CancelStore is the part of working memory an Agent uses: the agent's
// cancel index (memory.CancelIndex), read at start and pruned of the cancels
// that expired, at start and every AnnounceInterval. A memory.Memory is one.
type CancelStore interface {
	// IndexRange returns the members of index with score <= max, lowest first, at most limit.
	IndexRange(ctx context.Context, index string, max int64, limit int) ([]memory.IndexMember, error)
	// Batch runs ops (here, the removal of expired cancels) in one round trip.
	Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error)
}

// Bounds of loadCanceled and pruneCanceled.
const (
	// maxLoadedCancels is how many recorded cancels an instance loads at start
	// (and how many expired ones it drops then).
	maxLoadedCancels = 10_000
	// loadCancelsTimeout bounds the reading of the recorded cancels, and one
	// round of pruning.
	loadCancelsTimeout = 10 * time.Second
	// maxPrunedCancels is how many expired cancels one round of pruning
	// drops while the agent runs; the next round drops more.
	maxPrunedCancels = 1_000
)

// loadCanceled reads the cancels callers recorded in working memory for this
// agent (memory.CancelIndex) while no instance ran, so the tasks they name
// are answered CANCELED when they are dequeued; it drops the recorded
// cancels that have expired. Called after the instance queue is declared: a
// cancel sent later waits there, one sent before was recorded first. Best
// effort: a memory failure is logged and the agent runs on, honouring the
// cancels it receives. Without Options.Memory it does nothing.
//
// One read usually does: the index is ordered by expiry, so the expired
// cancels come first and the live ones after them. Only when that read is
// full and began with expired cancels is the index read again once they
// are dropped, as the live ones may lie beyond.
func (a *Agent) loadCanceled(ctx context.Context) {
	if a.opts.Memory == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, loadCancelsTimeout)
	defer cancel()
	index, err := memory.CancelIndex(a.Name())
	if err != nil {
		return // the name was validated by New
	}
	now := a.opts.Now().UnixMilli()
	recorded, err := a.opts.Memory.IndexRange(ctx, index, memory.MaxIndexScore, maxLoadedCancels+1)
	if err == nil {
		if expired := countExpired(recorded, now); expired > 0 {
			a.dropCancels(ctx, index, recorded[:min(expired, maxLoadedCancels)])
			if len(recorded) > maxLoadedCancels {
				recorded, err = a.opts.Memory.IndexRange(ctx, index, memory.MaxIndexScore, maxLoadedCancels+1)
			}
		}
	}
	if err != nil {
		a.log.Warn("recorded cancels not loaded: tasks canceled while no instance ran may still run", zap.Error(err))
		return
	}
	if len(recorded) > maxLoadedCancels {
		a.log.Warn("too many recorded cancels: only some are loaded", zap.Int("loaded", maxLoadedCancels))
		recorded = recorded[:maxLoadedCancels]
	}
	cancels := make(map[string]string, len(recorded))
	for _, m := range recorded {
		if taskID, caller, ok := memory.ParseCancelMember(m.Member); ok && m.Score > now {
			cancels[taskID] = caller
		}
	}
	a.running.load(cancels, a.opts.Now())
	if len(cancels) > 0 {
		a.log.Info("recorded cancels loaded", zap.Int("tasks", len(cancels)))
	}
}

// countExpired is how many of members, lowest score first, have expired
// (score <= now).
func countExpired(members []memory.IndexMember, now int64) int {
	n := 0
	for n < len(members) && members[n].Score <= now {
		n++
	}
	return n
}

// dropExpiredCancels removes at most limit expired cancels (score <= now)
// from index and returns how many it removed. Housekeeping: a failure is
// logged at debug level and the next round retries.
func (a *Agent) dropExpiredCancels(ctx context.Context, index string, limit int) int {
	expired, err := a.opts.Memory.IndexRange(ctx, index, a.opts.Now().UnixMilli(), limit)
	if err != nil {
		a.log.Debug("expired recorded cancels not read", zap.Error(err))
		return 0
	}
	return a.dropCancels(ctx, index, expired)
}

// dropCancels removes members from index in one batch and returns how many
// it removed (0 when the batch failed, which is logged at debug level).
func (a *Agent) dropCancels(ctx context.Context, index string, members []memory.IndexMember) int {
	if len(members) == 0 {
		return 0
	}
	ops := make([]memory.Op, len(members))
	for i, m := range members {
		ops[i] = memory.IndexRemoveOp(index, m.Member)
	}
	if _, err := a.opts.Memory.Batch(ctx, ops...); err != nil {
		a.log.Debug("expired recorded cancels not dropped", zap.Int("cancels", len(ops)), zap.Error(err))
		return 0
	}
	return len(ops)
}

// pruneCanceled is one round of housekeeping while the agent runs: it drops
// at most maxPrunedCancels expired cancels from the agent's cancel index
// (so the index does not grow between starts of a long-running instance)
// and forgets the cancels it remembers that are older than canceledMemory.
func (a *Agent) pruneCanceled(ctx context.Context) {
	a.running.forgetExpired(a.opts.Now())
	if a.opts.Memory == nil {
		return
	}
	index, err := memory.CancelIndex(a.Name())
	if err != nil {
		return // the name was validated by New
	}
	ctx, cancel := context.WithTimeout(ctx, loadCancelsTimeout)
	defer cancel()
	if n := a.dropExpiredCancels(ctx, index, maxPrunedCancels); n > 0 {
		a.log.Debug("expired recorded cancels dropped", zap.Int("cancels", n))
	}
}

// pruneLoop runs pruneCanceled every AnnounceInterval until ctx ends.
func (a *Agent) pruneLoop(ctx context.Context) {
	component.Every(ctx.Done(), a.opts.AnnounceInterval, func() { a.pruneCanceled(ctx) })
}
