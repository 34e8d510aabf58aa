// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// racyWindow: a file modified this close to the moment its corpus began to
// be read (or after it) may change again within its time stamp's
// granularity (a clock tick, a second or two on some file systems) without
// the stamp showing it, so a corpus with such a file is not reused.
const racyWindow = 2 * time.Second

// stamp is what a file was when it was listed: its size and modification
// time and, where the system gives them (stamp_linux.go), its inode and
// change time. A file replaced, rewritten, truncated or made readable
// shows in it.
type stamp struct {
	known      bool // false: the file could not be looked at
	size       int64
	mtimeSec   int64
	mtimeNsec  int
	ino        uint64
	ctimeNanos int64
}

// stampOf is the stamp of a file described by info.
func stampOf(info fs.FileInfo) stamp {
	m := info.ModTime()
	s := stamp{known: true, size: info.Size(), mtimeSec: m.Unix(), mtimeNsec: m.Nanosecond()}
	s.ino, s.ctimeNanos = sysStamp(info)
	return s
}

// modified is the stamp's modification time.
func (s stamp) modified() time.Time { return time.Unix(s.mtimeSec, int64(s.mtimeNsec)) }

// docFile is a document listed: its path in the Docs and its stamp.
type docFile struct {
	path  string
	stamp stamp
}

// corpus is the documents of a Docs as read for a task: the files listed
// with their stamps, their passages indexed for ranking, and the files
// that were skipped. It is not changed once built: tasks share it.
type corpus struct {
	files    []docFile
	index    *index
	warnings []string
	began    time.Time // when the files began to be listed
}

// reusable reports whether c stands for the documents now listed as
// files: the same files with the same stamps, none skipped (a file that
// could not be read may be readable now), none modified within racyWindow
// of c's reading.
func (c *corpus) reusable(files []docFile) bool {
	if len(c.warnings) > 0 || len(files) != len(c.files) {
		return false
	}
	recent := c.began.Add(-racyWindow)
	for i, f := range files {
		if was := c.files[i]; f.path != was.path || !f.stamp.known || f.stamp != was.stamp || !f.stamp.modified().Before(recent) {
			return false
		}
	}
	return true
}

// library keeps the corpus of a Docs last read, for the next task.
type library struct {
	mu      sync.Mutex
	last    *corpus
	preload chan struct{} // closed when Preload's reading has ended; nil when none was started
}

// get returns the corpus last kept, nil when none (or l is nil).
func (l *library) get() *corpus {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// keep makes c the corpus the next task may reuse.
func (l *library) keep(c *corpus) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = c
}

// awaitPreload waits for Preload's reading to end, or for ctx to.
func (l *library) awaitPreload(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	p := l.preload
	l.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Preload starts reading and indexing the documents in the background, so
// that the first task finds them ready: a one-shot job calls it before it
// connects, and the documents are read while it connects. A task waits
// for the preload, then lists the documents as always and reuses what was
// read unless a file was added, removed or changed since; a preload that
// failed keeps nothing, and the task reads the documents itself and
// reports what failed. The reading stops when ctx ends; wait returns once
// it has. A second call while one runs waits for the first.
func (d Docs) Preload(ctx context.Context) (wait func()) {
	if d.lib == nil || d.fsys == nil {
		return func() {}
	}
	d.lib.mu.Lock()
	done := d.lib.preload
	started := done == nil
	if started {
		done = make(chan struct{})
		d.lib.preload = done
	}
	d.lib.mu.Unlock()
	if started {
		go func() {
			defer close(done)
			_, _ = d.read(ctx, nil)
		}()
	}
	return func() { <-done }
}

// corpus returns the documents of d for a task: those Preload or the
// previous task read when no file changed since, else read now (reading,
// when not nil, is called before the first file is read, with read 0, and
// after each one). A missing folder is an error wrapping fs.ErrNotExist.
func (d Docs) corpus(ctx context.Context, reading func(read, of int)) (*corpus, error) {
	if err := d.lib.awaitPreload(ctx); err != nil {
		return nil, err
	}
	return d.read(ctx, reading)
}

// read lists the documents of d and returns the corpus kept when it is
// reusable, else reads and indexes them and keeps the result.
func (d Docs) read(ctx context.Context, reading func(read, of int)) (*corpus, error) {
	began := time.Now()
	files, err := listStamped(ctx, d)
	if err != nil {
		return nil, err
	}
	if last := d.lib.get(); last != nil && last.reusable(files) {
		return last, nil
	}
	c := &corpus{files: files, began: began, index: &index{}}
	if len(files) == 0 {
		return c, nil
	}
	if reading != nil {
		reading(0, len(files))
	}
	var passages []Passage
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ps, err := readDocument(d, f.path)
		if err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("skipped %s: %v", f.path, err))
			continue
		}
		passages = append(passages, ps...)
		if reading != nil {
			reading(i+1, len(files))
		}
	}
	if c.index, err = newIndex(ctx, passages); err != nil {
		return nil, err
	}
	d.lib.keep(c)
	return c, nil
}
