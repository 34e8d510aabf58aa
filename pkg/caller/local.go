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
type localTasks struct {
	mu        sync.Mutex
	byID      map[string]*Record
	nextPrune time.Time // when full, no entry expires before this
}

func newLocalTasks() *localTasks { return &localTasks{byID: map[string]*Record{}} }

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
}
