// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import (
	"slices"
	"sort"
	"time"

	"github.com/a2abus/a2abus/bus"
)

// entry is one queued message.
type entry struct {
	msg      bus.Message // the broker's private copy
	seq      uint64      // publish order: FIFO within a priority, also after a requeue
	attempts int         // deliveries so far that counted as attempts
	expires  time.Time   // zero means never
}

// queue holds messages in priority levels (one level unless it is a task
// queue). Every method is called with the broker's mutex held.
type queue struct {
	name     string
	kind     bus.QueueKind
	expires  time.Duration // the spec's Expires: checked on redeclare, never acted on
	bindings []pattern
	owner    *conn // the connection an instance queue belongs to
	levels   [][]*entry
	size     int
	signal   chan struct{} // closed when a message arrives; nil while nobody waits
	timer    *time.Timer   // fires at the earliest expiry
	timerAt  time.Time
	deleted  bool
}

func newQueue(spec bus.QueueSpec, owner *conn) *queue {
	levels := 1
	if spec.Kind == bus.KindTask {
		levels = bus.MaxPriority + 1
	}
	q := &queue{name: spec.Name, kind: spec.Kind, expires: spec.Expires, levels: make([][]*entry, levels)}
	if spec.Kind == bus.KindInstance {
		q.owner = owner
	}
	q.bind(spec.Bindings)
	return q
}

// bind adds the bindings the queue does not have yet.
func (q *queue) bind(keys []string) {
	for _, k := range keys {
		if !slices.ContainsFunc(q.bindings, func(p pattern) bool { return p.raw == k }) {
			q.bindings = append(q.bindings, compile(k))
		}
	}
}

// routes reports whether any binding matches key.
func (q *queue) routes(key []string) bool {
	for _, p := range q.bindings {
		if p.matches(key) {
			return true
		}
	}
	return false
}

// insert puts e at its place: by priority, then by publish order.
func (q *queue) insert(e *entry) {
	lv := min(int(e.msg.Priority), len(q.levels)-1)
	l := q.levels[lv]
	if n := len(l); n == 0 || l[n-1].seq < e.seq {
		q.levels[lv] = append(l, e)
	} else {
		i := sort.Search(n, func(i int) bool { return l[i].seq > e.seq })
		q.levels[lv] = slices.Insert(l, i, e)
	}
	q.size++
	if q.signal != nil {
		close(q.signal)
		q.signal = nil
	}
}

// pop removes and returns the first message in delivery order, or nil.
func (q *queue) pop() *entry {
	for lv := len(q.levels) - 1; lv >= 0; lv-- {
		if l := q.levels[lv]; len(l) > 0 {
			e := l[0]
			l[0] = nil
			q.levels[lv] = l[1:]
			q.size--
			return e
		}
	}
	return nil
}

// takeExpired removes and returns every message expired at now.
func (q *queue) takeExpired(now time.Time) []*entry {
	var out []*entry
	for lv, l := range q.levels {
		kept := l[:0]
		for _, e := range l {
			if !e.expires.IsZero() && !now.Before(e.expires) {
				out = append(out, e)
			} else {
				kept = append(kept, e)
			}
		}
		clear(l[len(kept):])
		q.levels[lv] = kept
	}
	q.size -= len(out)
	return out
}

// nextExpiry is the earliest expiry of a queued message, zero when none expires.
func (q *queue) nextExpiry() time.Time {
	var next time.Time
	for _, l := range q.levels {
		for _, e := range l {
			if !e.expires.IsZero() && (next.IsZero() || e.expires.Before(next)) {
				next = e.expires
			}
		}
	}
	return next
}

// wait returns a channel closed when the next message arrives.
func (q *queue) wait() <-chan struct{} {
	if q.signal == nil {
		q.signal = make(chan struct{})
	}
	return q.signal
}

// drop empties a deleted queue, stops its timer and wakes its waiters.
func (q *queue) drop() int {
	n := q.size
	q.deleted = true
	q.levels, q.size = nil, 0
	if q.timer != nil {
		q.timer.Stop()
	}
	if q.signal != nil {
		close(q.signal)
		q.signal = nil
	}
	return n
}
