// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"sync"
	"time"
)

// maxLocalTasks bounds how many records localTasks keeps.
const maxLocalTasks = 1 << 14

// localGrace is how long past its deadline a task's record is kept for a late result.
const localGrace = time.Minute

// localTasks keeps the records of the tasks this process invoked, so that
// the response handler and Wait need not read them back from working
// memory. A record never changes once Invoke wrote it, so the copy is exact;
// a task without one (invoked by another replica, or before a restart) is
// read from working memory. An entry is dropped when the task is finalized
// here, and pruned once it is well past its deadline when the cache is full.
//
// It also keeps what this process learned of the turns of its tasks (a
// question it stored, a turn it started), so that an answer and the turn's
// end need not read them back either. Those change: a copy is only a hint,
// which the claims of working memory check (turns.go).
type localTasks struct {
	mu        sync.Mutex
	byID      map[string]*Record
	nextPrune time.Time // when full, no entry expires before this
	turns     map[string]localTurn
	taken     map[string]bool // tasks whose take this process recorded (queuewait.go)
}

// localTurn is what this process knows of a task's turns: the question it
// waits on, or the latest turn it started (start, of turn n).
type localTurn struct {
	wait  *waitState
	start *turnStart
	n     int
}

func newLocalTasks() *localTasks {
	return &localTasks{byID: map[string]*Record{}, turns: map[string]localTurn{}, taken: map[string]bool{}}
}

// takeOnce reports whether this is the first time this process sees task
// id taken (so that its take is recorded once, not on every status).
func (l *localTasks) takeOnce(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.taken[id] {
		return false
	}
	if len(l.taken) >= maxLocalTasks {
		clear(l.taken) // hints only: a second record is harmless
	}
	l.taken[id] = true
	return true
}

// putWait remembers that task id waits on w (and forgets the turn it
// started before).
func (l *localTasks) putWait(id string, w *waitState) {
	l.putTurn(id, localTurn{wait: w})
}

// putStart remembers that this process started turn n of task id with s
// (the task no longer waits).
func (l *localTasks) putStart(id string, n int, s *turnStart) {
	l.putTurn(id, localTurn{start: s, n: n})
}

func (l *localTasks) putTurn(id string, t localTurn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.turns) >= maxLocalTasks {
		clear(l.turns) // hints only: the rest is read from working memory
	}
	l.turns[id] = t
}

// wait returns what task id waits on, if this process knows.
func (l *localTasks) wait(id string) (*waitState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.turns[id]
	return t.wait, t.wait != nil
}

// start returns how turn n of task id started, if this process started it.
func (l *localTasks) start(id string, n int) (*turnStart, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.turns[id]
	return t.start, t.start != nil && t.n == n
}

// put remembers rec; when full of live tasks it remembers nothing (the
// record is read from working memory instead).
func (l *localTasks) put(rec *Record, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byID) >= maxLocalTasks && !now.Before(l.nextPrune) {
		l.nextPrune = time.Time{}
		for id, r := range l.byID {
			switch expires := r.Deadline.Add(localGrace); {
			case now.After(expires):
				delete(l.byID, id)
			case l.nextPrune.IsZero() || expires.Before(l.nextPrune):
				l.nextPrune = expires
			}
		}
	}
	if len(l.byID) < maxLocalTasks {
		l.byID[rec.TaskID] = rec
	}
}

// get returns a copy of the record of task id, if this process has it.
func (l *localTasks) get(id string) (Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.byID[id]
	if !ok {
		return Record{}, false
	}
	return *rec, true
}

// drop forgets task id.
func (l *localTasks) drop(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byID, id)
	delete(l.turns, id)
	delete(l.taken, id)
}
