// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import "time"

// inputPoll is how often watchInput looks at a child's unread input: a
// tenth of WriteTimeout, within 10ms and 1s.
func inputPoll(writeTimeout time.Duration) time.Duration {
	return min(max(writeTimeout/10, 10*time.Millisecond), time.Second)
}

// watchInput kills the child when input it was sent stays unread for
// WriteTimeout. A write to a child that does not read blocks (and meets
// its deadline in send) only once the pipe's buffer is full — 64 KiB on
// Linux, which a few frames at low concurrency never fill — so the bytes
// still in the pipe are watched, where the system tells how many
// (unreadInput). The hello frame alone does not count: a program may leave
// it unread until it wants its first request.
func (c *child) watchInput() {
	tick := time.NewTicker(inputPoll(c.b.opts.WriteTimeout))
	defer tick.Stop()
	var stuckSince time.Time // since when unread input has not moved
	var lastRead int64       // bytes the child had read at the last look
	for {
		select {
		case <-c.exited:
			return
		case <-tick.C:
		}
		// Only between writes is every byte written counted: a write in
		// progress is bounded by its own deadline, and the next tick looks.
		if !c.wmu.TryLock() {
			continue
		}
		written, hello := c.written, c.helloBytes
		unread, err := unreadInput(c.in)
		c.wmu.Unlock()
		if err != nil {
			return // unknown on this system, or the pipe is closed: the write deadline alone applies
		}
		read := written - int64(unread)
		switch {
		case unread == 0 || written <= hello:
			stuckSince = time.Time{}
		case stuckSince.IsZero() || read != lastRead:
			stuckSince = time.Now()
		case time.Since(stuckSince) >= c.b.opts.WriteTimeout:
			c.notReading()
			return
		}
		lastRead = read
		if stuckSince.IsZero() {
			c.unreadSince.Store(0)
		} else {
			c.unreadSince.Store(stuckSince.UnixNano())
		}
	}
}
