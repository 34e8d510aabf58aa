// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// errChildGone: the child process exited or is stopping.
var errChildGone = errors.New("execbridge: agent process exited")

// child is one run of the agent process: its pipes, the requests it is
// running, and what it said last on stderr.
type child struct {
	b       *Bridge
	cmd     *exec.Cmd
	pid     int
	started time.Time
	in      *os.File // the child's stdin, written by send
	out     *os.File // the child's stdout, read by read
	errs    *os.File // the child's stderr, read by logStderr

	wmu sync.Mutex // one frame written at a time

	written    int64 // bytes written to in, under wmu
	helloBytes int64 // of which the hello frame's

	unreadSince atomic.Int64 // UnixNano since when sent input has stayed unread; 0 while it is read

	mu       sync.Mutex
	inflight map[string]*pending
	gone     bool
	exitErr  error    // why it ended, once gone
	killedBy string   // why the host killed it, when it did
	tail     []string // the last stderr lines, for errors

	cards   chan cardLine // the first agent.card line, or why it was unusable
	exited  chan struct{} // closed when the process has exited (its pipes may still be open)
	done    chan struct{} // closed once the process ended, its pipes were drained and its requests failed
	readEOF chan struct{} // closed when stdout reached its end
	errEOF  chan struct{} // closed when stderr reached its end
}

// cardLine is an agent.card frame, or err when its line was unusable.
type cardLine struct {
	f   *Frame
	err error
}

// tailLines is how many stderr lines an error about the child quotes.
const tailLines = 5

// startChild starts the command with its pipes and the goroutines that read
// them, and sends the hello frame.
func (b *Bridge) startChild() (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("execbridge: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("execbridge: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("execbridge: stderr pipe: %w", err)
	}
	cmd := exec.Command(b.argv[0], b.argv[1:]...)
	cmd.Dir, cmd.Env = b.opts.Dir, b.opts.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownProcessGroup(cmd)
	err = cmd.Start()
	closeAll(inR, outW, errW) // the child holds its ends now
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("execbridge: start %q: %w", b.opts.Command, err)
	}
	c := &child{
		b: b, cmd: cmd, pid: cmd.Process.Pid, started: time.Now(), in: inW, out: outR, errs: errR,
		inflight: map[string]*pending{}, cards: make(chan cardLine, 1), exited: make(chan struct{}),
		done: make(chan struct{}), readEOF: make(chan struct{}), errEOF: make(chan struct{}),
	}
	go c.read()
	go c.logStderr()
	go c.wait()
	if err := c.send(&Frame{Type: TypeHello, Version: Version, Concurrency: b.opts.Concurrency}); err != nil {
		b.log.Warn("agent process: hello not written", zap.Int("pid", c.pid), zap.Error(err))
	}
	c.wmu.Lock()
	c.helloBytes = c.written
	c.wmu.Unlock()
	go c.watchInput()
	return c, nil
}

// send writes f as one line. A child that does not read its input for
// WriteTimeout is killed: a line half written would garble the stream.
func (c *child) send(f *Frame) error {
	line, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("execbridge: encode %s frame: %w", f.Type, err)
	}
	line = append(line, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isGone() {
		return errChildGone
	}
	_ = c.in.SetWriteDeadline(time.Now().Add(c.b.opts.WriteTimeout))
	n, err := c.in.Write(line)
	c.written += int64(n)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.notReading()
		}
		return fmt.Errorf("execbridge: write %s frame to pid %d: %w", f.Type, c.pid, err)
	}
	return nil
}

// notReading kills the child for not reading its input for WriteTimeout:
// a frame half written would garble the stream, and one left unread is
// never answered. The requests it was running fail saying so.
func (c *child) notReading() {
	c.b.log.Error("agent process does not read its input: killing it", zap.Int("pid", c.pid),
		zap.Duration("write_timeout", c.b.opts.WriteTimeout))
	c.kill(fmt.Sprintf("it did not read its input for %s", c.b.opts.WriteTimeout))
}

// kill kills the child's process group for reason (quoted by describe),
// unless it has exited already.
func (c *child) kill(reason string) {
	select {
	case <-c.exited:
		return
	default:
	}
	c.mu.Lock()
	if c.killedBy == "" {
		c.killedBy = reason
	}
	c.mu.Unlock()
	_ = signalGroup(c.cmd.Process, syscall.SIGKILL)
}

// read reads the child's stdout a line at a time and dispatches the frames.
// A line longer than MaxFrameBytes is not kept: what it is about (its type
// and request) is read as it streams past, and it ends its request or is
// skipped (oversized).
func (c *child) read() {
	defer close(c.readEOF)
	r := bufio.NewReaderSize(c.out, 64<<10)
	var line []byte
	var long *lineHead // the head of a line over the limit, while it streams
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case long != nil:
			long.write(chunk)
		case len(line)+len(chunk) > c.b.opts.MaxFrameBytes:
			long = &lineHead{}
			long.write(line)
			long.write(chunk)
			line = line[:0]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long != nil {
			c.b.oversized(c, long)
		} else if l := bytes.TrimSpace(line); len(l) > 0 {
			c.b.dispatch(c, l)
		}
		line, long = line[:0], nil
		if err != nil {
			return // io.EOF, or the pipe closed after the process ended
		}
	}
}

// logStderr logs the child's stderr, one entry per line (each cut to
// MaxStderrLine bytes, at most StderrLinesPerSecond a second; the rest are
// counted and the count logged), and keeps the last lines for errors.
func (c *child) logStderr() {
	defer close(c.errEOF)
	r := bufio.NewReaderSize(c.errs, 16<<10)
	lim := newLimiter(c.b.opts.StderrLinesPerSecond)
	for {
		line, err := r.ReadSlice('\n')
		cut := errors.Is(err, bufio.ErrBufferFull) || len(line) > c.b.opts.MaxStderrLine
		text := strings.TrimRight(string(line[:min(len(line), c.b.opts.MaxStderrLine)]), "\r\n")
		for errors.Is(err, bufio.ErrBufferFull) { // skip the rest of a long line
			_, err = r.ReadSlice('\n')
		}
		if text != "" || cut {
			if cut {
				text += " …(cut)"
			}
			c.mu.Lock()
			c.tail = append(c.tail, text)
			if len(c.tail) > tailLines {
				c.tail = c.tail[1:]
			}
			c.mu.Unlock()
			if ok, dropped := lim.allow(); ok {
				fields := []zap.Field{zap.Int("pid", c.pid), zap.String("line", text)}
				if dropped > 0 {
					fields = append(fields, zap.Int("dropped_before", dropped))
				}
				c.b.log.Info("agent stderr", fields...)
			}
		}
		if err != nil {
			if n := lim.flush(); n > 0 {
				c.b.log.Info("agent stderr: lines dropped (rate limit)", zap.Int("pid", c.pid), zap.Int("dropped", n))
			}
			return
		}
	}
}

// wait waits for the process to end, lets its pipes drain (for DrainTimeout
// at most, in all: a process it started outside its process group may hold
// them open for good), then fails the requests it was running.
func (c *child) wait() {
	err := c.cmd.Wait()
	close(c.exited)
	killOrphans(c.pid)
	drain := time.NewTimer(c.b.opts.DrainTimeout)
	defer drain.Stop()
drained:
	for _, ch := range []chan struct{}{c.readEOF, c.errEOF} {
		select {
		case <-ch:
		case <-drain.C:
			c.b.log.Warn("agent process exited, but something holds its output open (a process it started outside its process group): no longer reading it",
				zap.Int("pid", c.pid), zap.Duration("drained_for", c.b.opts.DrainTimeout))
			break drained
		}
	}
	closeAll(c.out, c.errs, c.in) // ends the reads, and a write blocked on a pipe such a process holds
	<-c.readEOF
	<-c.errEOF
	c.wmu.Lock()
	c.mu.Lock()
	c.gone = true
	if err == nil {
		err = errors.New("exit status 0")
	}
	c.exitErr = err
	reqs := c.inflight
	c.inflight = map[string]*pending{}
	c.mu.Unlock()
	c.wmu.Unlock()
	reason := c.describe()
	for _, p := range reqs {
		p.fail(reason)
	}
	close(c.done)
}

// describe says how the process ended, with its last stderr lines.
func (c *child) describe() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := fmt.Sprintf("agent process %d exited (%v)", c.pid, c.exitErr)
	if c.killedBy != "" {
		s = fmt.Sprintf("agent process %d was killed (%v): %s", c.pid, c.exitErr, c.killedBy)
	}
	if len(c.tail) > 0 {
		s += "; its last stderr lines: " + strings.Join(c.tail, " | ")
	}
	return s
}

func (c *child) isGone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// track registers p as running in this child; false when the child is gone.
func (c *child) track(p *pending) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return false
	}
	if _, dup := c.inflight[p.id]; dup {
		return false
	}
	c.inflight[p.id] = p
	return true
}

// untrack forgets p; later frames for it are unknown.
func (c *child) untrack(p *pending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[p.id] == p {
		delete(c.inflight, p.id)
	}
}

// lookup returns the request id is running, nil when none; remove forgets
// it at once, so that no later frame finds it.
func (c *child) lookup(id string, remove bool) *pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.inflight[id]
	if remove {
		delete(c.inflight, id)
	}
	return p
}

// stop ends the process within timeout: its stdin is closed (a well-behaved
// child exits at end of input), then SIGTERM at half the time, then SIGKILL,
// both to its whole process group (what it started goes too). It returns
// once the process has exited and its pipes are drained (DrainTimeout at
// most), so within timeout and DrainTimeout.
func (c *child) stop(timeout time.Duration) {
	// Not under wmu: closing ends at once a write blocked on a child that
	// does not read (os.File.Close is safe beside a Write), and the stream
	// ends here anyway.
	closeAll(c.in)
	select {
	case <-c.exited:
	case <-time.After(timeout / 2):
		_ = signalGroup(c.cmd.Process, syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(timeout / 2):
			c.b.log.Warn("agent process did not stop: killing it", zap.Int("pid", c.pid), zap.Duration("after", timeout))
			c.kill("it did not stop in time")
		}
	}
	<-c.done
}

func closeAll(cs ...io.Closer) {
	for _, c := range cs {
		_ = c.Close()
	}
}

// limiter lets at most n events through per second and counts the others.
type limiter struct {
	n       int
	start   time.Time
	used    int
	dropped int
}

func newLimiter(n int) *limiter { return &limiter{n: n} }

// allow reports whether one more event may be logged now, and how many were
// dropped since the last one allowed.
func (l *limiter) allow() (bool, int) {
	now := time.Now()
	if now.Sub(l.start) >= time.Second {
		l.start, l.used = now, 0
	}
	if l.used >= l.n {
		l.dropped++
		return false, 0
	}
	l.used++
	d := l.dropped
	l.dropped = 0
	return true, d
}

// flush returns the events dropped since the last one allowed.
func (l *limiter) flush() int {
	d := l.dropped
	l.dropped = 0
	return d
}
