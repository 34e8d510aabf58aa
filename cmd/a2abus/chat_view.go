// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
)

// chatPrompt is the interactive chat's prompt, shown on a terminal while
// the model is not running.
const chatPrompt = "you> "

// ANSI escapes of the chat view (a terminal only).
const (
	ansiDim       = "\033[2m"
	ansiReset     = "\033[0m"
	ansiClearLine = "\r\033[K"
)

// chatPrinter prints what the chat shows: the answers on w; status lines,
// tool calls and notifications on status (w too when live). On a terminal
// status (tty) it also keeps one live line at the bottom: the prompt when
// live and the model is idle, a spinner ("thinking… 2.1s") while the model
// runs, its retries included; every other line is printed above it, the
// tool calls dimmed. Off a terminal the lines are plain and nothing is redrawn.
type chatPrinter struct {
	mu        sync.Mutex
	w, status io.Writer
	live      bool // interactive: print every answer as it lands
	tty       bool // status is a terminal: the live line, dim tool calls

	shown    map[string]bool // ids of the tool calls printed (EventToolCall): not again with their turn
	thinking bool            // a run of the model is going
	since    time.Time       // when it started
	frame    int
	drawn    bool // the live line is on status's current line
	closed   bool

	stop, done chan struct{}
}

// newChatPrinter prints answers on w and the rest on status (w when live);
// tty draws the live line. Call close when done.
func newChatPrinter(w, status io.Writer, live, tty bool) *chatPrinter {
	if live {
		status = w
	}
	p := &chatPrinter{w: w, status: status, live: live, tty: tty, shown: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	if !tty {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		component.Every(p.stop, progressTick, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.thinking {
				p.redraw()
			}
		})
	}()
	return p
}

// line prints each of lines on w, one block above the live line.
func (p *chatPrinter) line(lines ...string) {
	for i, l := range lines {
		lines[i] = cliutil.Printable(l)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.print(p.w, strings.Join(lines, "\n"))
}

func (p *chatPrinter) answer(t memory.Turn) { p.line(t.Content) }

// print writes s and a newline on to, the live line erased first and
// drawn again after; p.mu is held.
func (p *chatPrinter) print(to io.Writer, s string) {
	if p.closed {
		return
	}
	p.erase()
	fmt.Fprintln(to, s)
	p.redraw()
}

// erase clears the live line; p.mu is held.
func (p *chatPrinter) erase() {
	if p.drawn {
		fmt.Fprint(p.status, ansiClearLine)
		p.drawn = false
	}
}

// redraw draws the live line: the spinner while the model runs, else the
// prompt when live; p.mu is held.
func (p *chatPrinter) redraw() {
	if !p.tty || p.closed {
		return
	}
	switch {
	case p.thinking:
		p.frame++
		line := fmt.Sprintf("%s thinking… %s", spinner[p.frame%len(spinner)], elapsed(time.Since(p.since)))
		fmt.Fprint(p.status, ansiClearLine+ansiDim+truncate(line, terminalWidth(p.status)-2)+ansiReset)
	case p.live && !p.drawn:
		fmt.Fprint(p.status, chatPrompt)
	default:
		return
	}
	p.drawn = true
}

// entered notes that the user ended a line: the terminal moved to the
// next one, so the prompt is no longer on the current line.
func (p *chatPrinter) entered() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawn = false
}

// prompt draws the prompt when nothing else is on the live line.
func (p *chatPrinter) prompt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redraw()
}

// close stops the live line and erases it. Idempotent.
func (p *chatPrinter) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.erase()
	p.closed = true
	p.mu.Unlock()
	if p.tty {
		close(p.stop)
	}
	<-p.done
}

// chatLogWriter writes log lines on the status writer of a chatPrinter,
// above its live line.
type chatLogWriter struct{ p *chatPrinter }

func (w chatLogWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	n, err := p.status.Write(b)
	p.redraw()
	return n, err
}

// dim is s dimmed on a terminal.
func (p *chatPrinter) dim(s string) string {
	if p.tty {
		return ansiDim + s + ansiReset
	}
	return s
}

// event prints a session event: the model's runs (the spinner) and tool
// calls; live, the answers and failures; always, the status updates and
// notifications of sub-tasks.
func (p *chatPrinter) event(ev chat.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case chat.EventRun:
		p.thinking, p.since = true, time.Now()
		p.redraw()
	case chat.EventRunEnd:
		p.thinking = false
		p.erase()
		p.redraw()
	case chat.EventToolCall:
		p.shown[ev.Call.ID] = true
		p.toolCall(ev.Call)
	case chat.EventStatus:
		st := ev.Status
		line := fmt.Sprintf("· %s %s", st.Agent, stateWord(string(st.State)))
		if t := a2a.MessageText(st.Message); t != "" {
			line += ": " + t
		}
		p.print(p.status, cliutil.PrintableLine(line))
	case chat.EventTurn:
		p.turn(ev.Turn)
	}
}

// turn prints what people see of an appended turn; p.mu is held.
func (p *chatPrinter) turn(t memory.Turn) {
	kind := t.Meta[chat.MetaKind]
	switch {
	case kind == chat.KindToolCalls:
		for _, c := range chat.ToolCalls(t) { // the calls of another process's run, or of an earlier one
			if !p.shown[c.ID] {
				p.toolCall(c)
			}
		}
	case kind == caller.KindNotification && t.Meta[caller.MetaOutcome] == caller.OutcomeQuestion:
		p.print(p.status, cliutil.PrintableLine(fmt.Sprintf("· %s asks a question (task %s)", t.Meta[caller.MetaAgent], memory.MetaValue(t.Meta, caller.MetaTaskID))))
	case kind == caller.KindNotification && t.Meta[caller.MetaAgent] != "":
		p.print(p.status, cliutil.PrintableLine(fmt.Sprintf("· %s: task %s ended (%s)", t.Meta[caller.MetaAgent], memory.MetaValue(t.Meta, caller.MetaTaskID),
			stateWord(t.Meta[caller.MetaState]))))
	case !p.live:
	case kind == chat.KindAnswer: // the spinner stops at EventRunEnd: the answer may be another process's
		p.print(p.w, "assistant> "+cliutil.Printable(t.Content))
	case kind == chat.KindError:
		p.print(p.w, "assistant (failed)> "+cliutil.Printable(t.Meta[chat.MetaError]))
	}
}

// toolCall prints c as one dim line: → invoke_agent SampleAgent.echo; p.mu is held.
func (p *chatPrinter) toolCall(c llm.ToolCall) {
	p.print(p.status, p.dim(cliutil.PrintableLine("→ "+chat.CallSummary(c))))
}

// stateWord is a task state for people: TASK_STATE_INPUT_REQUIRED → input_required.
func stateWord(state string) string {
	return strings.ToLower(strings.TrimPrefix(state, "TASK_STATE_"))
}
