// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// child is one agent or caller process of the soak and its restarts.
type child struct {
	role  string // agent or caller
	name  string // the agent's or caller's name
	index int
	env   []string // the role's environment, besides SOAK_PROC

	mu      sync.Mutex
	starts  int
	proc    string // the current process's soak id
	cmd     *exec.Cmd
	done    chan struct{}
	killed  bool // the current process was killed by the plan
	stopped bool // stopped on purpose (end of run or one-shot exit expected)
	failed  bool // the last process exited on its own with an error
	// supervised processes are started again when they exit on their own.
	supervised bool
}

// restartDelay is how long a crashed process (or one-shot caller) waits before it is started again.
const restartDelay = time.Second

// procs starts, kills and stops the soak's child processes.
type procs struct {
	exe string
	dir string // where their logs go
	log *zap.Logger

	mu      sync.Mutex
	closed  bool           // killLeft ran: no process is started any more
	crashes int            // processes that exited on their own with an error
	running map[int]string // pid → soak id of every process not yet exited
}

// start starts (or restarts) c's process.
func (p *procs) start(c *child) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return ErrProcsClosed
	}
	c.starts++
	c.proc = fmt.Sprintf("%s%d.%d", c.role, c.index, c.starts)
	logf, err := os.Create(filepath.Join(p.dir, c.proc+".log"))
	if err != nil {
		return fmt.Errorf("soak: log of %s: %w", c.proc, err)
	}
	cmd := exec.Command(p.exe, c.role)
	cmd.Env = append(append(os.Environ(), c.env...), envProc+"="+c.proc)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return fmt.Errorf("soak: start %s: %w", c.proc, err)
	}
	c.cmd, c.done, c.killed, c.stopped = cmd, make(chan struct{}), false, false
	proc, done := c.proc, c.done
	p.mu.Lock()
	if p.running == nil {
		p.running = map[int]string{}
	}
	p.running[cmd.Process.Pid] = proc
	if p.closed { // killLeft ran since the check above
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		delete(p.running, cmd.Process.Pid)
		p.mu.Unlock()
		_ = logf.Close()
		c.mu.Lock()
		expected := c.killed || c.stopped
		c.failed = err != nil && !expected
		restart := c.failed && c.supervised
		c.mu.Unlock()
		if c.failed {
			p.mu.Lock()
			p.crashes++
			p.mu.Unlock()
			p.log.Warn("process exited on its own", zap.String("proc", proc), zap.Error(err), zap.Bool("restart", restart))
		}
		close(done)
		if restart {
			pause(restartDelay) // a supervisor's back-off
			c.mu.Lock()
			stopped := c.stopped
			c.mu.Unlock()
			if !stopped {
				if err := p.start(c); err != nil {
					p.log.Error("process not restarted", zap.String("proc", proc), zap.Error(err))
				}
			}
		}
	}()
	return nil
}

// ErrProcsClosed is the error of a process start after the run's teardown
// (a restart by a fault or a supervisor still under way): nothing the run
// starts may outlive it.
var ErrProcsClosed = errors.New("soak: processes closed")

// kill kill -9s c's process and waits for it to be gone; it returns the killed process's soak id.
func (p *procs) kill(c *child) string {
	c.mu.Lock()
	c.killed = true
	cmd, done, proc := c.cmd, c.done, c.proc
	c.mu.Unlock()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	return proc
}

// stopTimeout bounds a graceful stop; the process is then killed.
const stopTimeout = 30 * time.Second

// stop asks c's process to stop (SIGTERM) and waits for it, killing it after stopTimeout.
func (p *procs) stop(c *child) {
	c.mu.Lock()
	c.stopped = true
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(stopTimeout):
		p.log.Warn("process did not stop: killing it", zap.String("proc", c.current()))
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// killLeft kill -9s every process still running (none, after a clean stop)
// and returns their soak ids; no process is started after it.
func (p *procs) killLeft() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var left []string
	for pid, proc := range p.running {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		left = append(left, proc)
	}
	return left
}

// wait waits for c's current process to exit on its own and reports whether it failed.
func (c *child) wait() bool {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	<-done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// current is the soak id of c's current process.
func (c *child) current() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proc
}

// crashCount is how many processes crashed.
func (p *procs) crashCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashes
}
