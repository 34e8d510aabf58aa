// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// progressTick is how often the live line is redrawn on a terminal.
const progressTick = 100 * time.Millisecond

// progress shows how a wait goes on stderr. On a terminal it is one line,
// redrawn every progressTick: a spinner, the elapsed time, the last status
// update and the queue note. Otherwise (piped, redirected) it prints one
// line per status update ("status: …") and per change of the queue note
// ("queue: …"), and nothing on its own.
type progress struct {
	w        io.Writer
	terminal bool
	width    int
	start    time.Time

	mu     sync.Mutex
	what   string // before the first status update: what is awaited
	status string // the last status update
	note   string // the queue note, "" when none
	frame  int
	drawn  bool
	closed bool

	stop chan struct{}
	done chan struct{}
}

// newProgress starts showing a wait for what (e.g. "SampleAgent.echo") on w.
func newProgress(w io.Writer, what string) *progress {
	return newProgressOn(w, what, isTerminalWriter(w))
}

// newProgressOn is newProgress on a terminal or not.
func newProgressOn(w io.Writer, what string, terminal bool) *progress {
	p := &progress{w: w, terminal: terminal, width: terminalWidth(w), start: time.Now(), what: what,
		stop: make(chan struct{}), done: make(chan struct{})}
	if !p.terminal {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		component.Every(p.stop, progressTick, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.draw()
		})
	}()
	return p
}

// print shows a status update (a caller.StatusFunc).
func (p *progress) print(st *a2a.TaskStatus) {
	line := fmt.Sprintf("%s %s", st.Agent, strings.ToLower(strings.TrimPrefix(string(st.State), "TASK_STATE_")))
	if st.Progress != nil {
		line += fmt.Sprintf(" %3.0f%%", *st.Progress*100)
	}
	if t := a2a.MessageText(st.Message); t != "" {
		line += ": " + t
	}
	line = cliutil.PrintableLine(line) // the agent's text: one line, driving nothing
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.status, p.note = line, "" // the agent has it: the queue no longer matters
	if p.terminal {
		p.draw()
		return
	}
	fmt.Fprintf(p.w, "status: %s\n", line)
}

// started reports whether a status update came (or the progress ended).
func (p *progress) started() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status != "" || p.closed
}

// queued shows note about the task's queue (see queueNote); "" clears it.
// Off a terminal a note is printed once, when it changes.
func (p *progress) queued(note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || note == p.note || p.status != "" {
		return
	}
	p.note = note
	if p.terminal {
		p.draw()
		return
	}
	if note != "" {
		fmt.Fprintf(p.w, "queue: %s\n", note)
	}
}

// draw redraws the live line; p.mu is held.
func (p *progress) draw() {
	if p.closed {
		return
	}
	p.frame++
	text := p.status
	if text == "" {
		text = "waiting for " + p.what
	}
	if p.note != "" {
		text += " · " + p.note
	}
	line := fmt.Sprintf("%s %s %s", spinner[p.frame%len(spinner)], elapsed(time.Since(p.start)), text)
	fmt.Fprintf(p.w, "\r\033[K%s", truncate(line, p.width-2))
	p.drawn = true
}

// close stops the live line and erases it.
func (p *progress) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.mu.Unlock()
	if p.terminal {
		close(p.stop)
	}
	<-p.done
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// elapsed formats d for the live line: 0.4s, 12.3s, 2m05s, 1h02m.
func elapsed(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// queueNote describes a task waiting in queue with messages ready in it
// (the task among them) and consumers subscribed; "" when nothing is worth
// saying (an agent is there and the queue is empty).
func queueNote(queue string, messages, consumers int) string {
	if consumers == 0 {
		ahead := max(messages-1, 0)
		return fmt.Sprintf("waiting in %s: %d ahead, no agent running — a KEDA job will start it if one scales this queue", queue, ahead)
	}
	if messages == 0 {
		return ""
	}
	return fmt.Sprintf("waiting in %s: %d ready, %d %s running", queue, messages, consumers, plural(consumers, "agent", "agents"))
}

// waitLeft says how long a task may still wait to be taken.
func waitLeft(d time.Duration) string {
	if d <= 0 {
		return "its wait to be taken is over: EXPIRED_IN_QUEUE unless an agent took it"
	}
	return "it may wait " + elapsed(d) + " more to be taken, then EXPIRED_IN_QUEUE"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isTerminalWriter reports whether w is a terminal.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && f.Name() != os.DevNull
}

// terminalWidth is the width of the terminal w writes to, else $COLUMNS
// when set, else 80: a live line longer than the terminal would wrap, and
// \r would no longer erase it.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 10 {
			return n
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 10 {
		return n
	}
	return 80
}
