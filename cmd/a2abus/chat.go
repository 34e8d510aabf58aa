// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

type chatFlags struct {
	session, message string
	timeout          time.Duration
}

// newChatCmd builds `a2abus chat`.
func newChatCmd(c *cli) *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Chat with the primary agent: its model calls other agents and answers when their results arrive",
		Long: "Runs the primary chat loop on a session's conversation (the model at llm.base_url, with the tools\n" +
			"invoke_agent, list_known_agents and get_from_working_memory). Interactive on a terminal: type a line at\n" +
			"the you> prompt; a spinner runs while the model (and its retries) does, each tool call is one dim line\n" +
			"(→ invoke_agent SampleAgent.echo) and sub-task status lines are shown live. /help, /agents (the directory's\n" +
			"agents), /tasks (this session's sub-tasks and their states) and /quit (or Ctrl-D) are answered here, never\n" +
			"sent to the model; a line starting with // is sent with one / removed. Only errors are logged unless\n" +
			"--log-level is info or debug. With --message TEXT, or text on a\n" +
			"non-terminal standard input (echo hi | a2abus chat), it sends one user turn, waits until the assistant\n" +
			"answered and every sub-task it started came back and was answered (bounded by --timeout), prints the\n" +
			"assistant's turns and exits 0 — 2 when the model or a sub-task failed the turn, 4 when an agent's question\n" +
			"waits for your answer (the assistant asked it: answer with a2abus chat --session S --message ANSWER;\n" +
			"the model passes it on). An agent's question the model can answer from the conversation, it answers itself.",
		Example: "  a2abus chat\n" +
			"  a2abus chat --message 'what is the NPV of -100, 60, 60 at 10%?' --session s1\n" +
			"  echo 'research how KEDA scales jobs' | a2abus chat --timeout 10m",
		Args: cobra.NoArgs,
	}
	cmd.RunE = c.withConfig(func(ctx context.Context, e *env, _ []string) error {
		return runChat(ctx, e, f, cmd.InOrStdin(), cmd.Flags().Changed("message"))
	})
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "the session (conversation) to chat in (default: a new one, printed on stderr)")
	fl.StringVar(&f.message, "message", "", "send this one user turn, wait for the answers, print them and exit")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "with --message or piped input: how long to wait for the answers and the sub-tasks")
	return cmd
}

func runChat(ctx context.Context, e *env, f chatFlags, stdin io.Reader, hasMessage bool) error {
	interactive := !hasMessage && isTerminal(stdin)
	if f.session == "" {
		f.session = uuid.NewString()
		if !interactive { // the interactive chat names it in its first line
			fmt.Fprintf(e.Err, "a2abus: session %s\n", f.session)
		}
	} else if err := memory.ValidateSessionID(f.session); err != nil {
		return fmt.Errorf("--session: %w", err)
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--timeout: must be positive, got %s", f.timeout)
	}
	text := f.message
	limit := e.Config.Chat.MaxInputBytes
	if !hasMessage && !interactive {
		b, err := io.ReadAll(io.LimitReader(stdin, int64(limit)+1))
		if err != nil {
			return fmt.Errorf("read standard input: %w", err)
		}
		if len(b) > limit {
			return tooLong("standard input", limit)
		}
		text = string(b)
	}
	if len(text) > limit {
		return tooLong("--message", limit)
	}
	if !interactive && strings.TrimSpace(text) == "" {
		return errors.New("nothing to send: give --message TEXT or text on standard input")
	}
	status := e.Err
	if interactive {
		status = e.Out
	}
	out := newChatPrinter(e.Out, status, interactive, isTerminalWriter(status))
	defer out.close()
	if interactive {
		if err := chatLogger(e, out); err != nil {
			return err
		}
	}
	s, agents, closeAll, err := openChat(ctx, e, f.session, out.event)
	if err != nil {
		return err
	}
	defer closeAll()
	if interactive {
		return chatInteractive(ctx, &chatCommands{s: s, directory: agents, out: out}, stdin, limit)
	}
	return chatOnce(ctx, s, text, f.timeout, out)
}

// chatLogger makes the interactive chat log above its live line, and only
// errors unless log.level is debug or info: what a person needs is shown as
// the conversation (a failed turn, the sub-tasks' lines), and warnings
// (no well-known agents file, a retried write) would only break into it.
func chatLogger(e *env, out *chatPrinter) error {
	cfg := e.Config.Log
	if cfg.Level != "debug" && cfg.Level != "info" {
		cfg.Level = "error"
	}
	log, err := node.NewLogger(cfg, chatLogWriter{out})
	if err != nil {
		return fmt.Errorf("build the chat's logger: %w", err)
	}
	e.Log = log
	return nil
}

// tooLong is the error of a user turn over chat.max_input_bytes: it is
// refused whole, never cut.
func tooLong(what string, limit int) error {
	return fmt.Errorf("%s: the message is longer than chat.max_input_bytes (%d bytes); nothing was sent", what, limit)
}

// openChat assembles the chat session on a host of its node: the model,
// the host's directory (list_known_agents, and vetting of invoke_agent's
// targets), the configuration's caller and the session's loop; closeAll
// stops them in the host's order and reports what went wrong.
func openChat(ctx context.Context, e *env, session string, onEvent func(chat.Event)) (*chat.Session, tools.Lister, func(), error) {
	n, err := e.OpenNode(ctx, "a2abus-chat")
	if err != nil {
		return nil, nil, nil, err
	}
	h := node.NewHost(n)
	s, agents, err := buildChat(ctx, h, e, session, onEvent)
	if err != nil {
		return nil, nil, nil, errors.Join(err, h.Close())
	}
	h.Start(ctx)
	return s, agents, func() {
		if err := h.Close(); err != nil {
			fmt.Fprintf(e.Err, "a2abus: %v\n", err)
		}
	}, nil
}

// buildChat adds the chat session's parts to h; agents is its directory.
func buildChat(ctx context.Context, h *node.Host, e *env, session string, onEvent func(chat.Event)) (s *chat.Session, agents tools.Lister, err error) {
	model, err := h.Node.Model()
	if err != nil {
		return nil, nil, err
	}
	d, err := h.Directory(node.Lister)
	if err != nil {
		return nil, nil, err
	}
	resolver, err := h.Resolver()
	if err != nil {
		return nil, nil, err
	}
	cl, err := h.Caller(e.Config.Caller.Name)
	if err != nil {
		return nil, nil, err
	}
	// The user's turns go into the session: it must be this caller's (or new).
	if err := cl.ClaimSession(ctx, session); err != nil {
		return nil, nil, cliutil.Refused(fmt.Errorf("chat: session %q: %w", session, err))
	}
	agents = tools.DirectoryLister{Directory: d}
	s, err = chat.New(chat.Options{SessionID: session, Model: model, Caller: cl, Agents: agents,
		Resolver: resolver, Memory: h.Node.Memory, Chat: e.Config.Chat, MaxToolArgumentBytes: e.Config.LLM.MaxToolArgumentBytes,
		MemoryRetryBound: e.Config.Memory.RetryBound, OnEvent: onEvent, Logger: e.Log})
	if err != nil {
		return nil, nil, err
	}
	return s, agents, h.Add(node.TierWork, "chat session", s)
}

// chatOnce sends text and waits, within timeout, until the conversation
// settled; it prints the answers and makes a failed turn exit 2.
func chatOnce(ctx context.Context, s *chat.Session, text string, timeout time.Duration, out *chatPrinter) error {
	turn, err := s.Send(ctx, strings.TrimSpace(text), nil)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	settled, err := s.Wait(wctx, turn.Seq)
	if err != nil {
		for _, t := range s.Turns() { // what was answered before the wait ended
			if t.Seq > turn.Seq && t.Meta[chat.MetaKind] == chat.KindAnswer {
				out.answer(t)
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return taskFailed(fmt.Errorf("--timeout %s: %w", timeout, err))
		}
		return err
	}
	for _, t := range settled.Answers {
		if t.Meta[chat.MetaKind] == chat.KindAnswer {
			out.answer(t)
		}
	}
	if settled.Err != nil {
		return taskFailed(settled.Err)
	}
	if n := len(settled.Questions); n > 0 {
		return cliutil.InputRequired(fmt.Errorf("%d agent question(s) wait for your answer: a2abus chat --session %s --message ANSWER", n, s.ID()))
	}
	return nil
}

// chatInteractive reads user turns from in, one per line of at most limit
// bytes, until EOF or /quit; commands (/help, /agents, /tasks) are answered
// here, never sent to the model; the answers and status lines are printed
// as they come. A longer line ends the chat with an error naming the bound.
func chatInteractive(ctx context.Context, c *chatCommands, in io.Reader, limit int) error {
	s, out := c.s, c.out
	out.line(fmt.Sprintf("a2abus chat — session %s (/help lists the commands; /quit or Ctrl-D ends)", s.ID()))
	out.prompt()
	lines := make(chan string)
	var readErr error // set before lines closes
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, min(64<<10, limit+1)), limit+1) // +1: the line's end
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr = sc.Err()
		if errors.Is(readErr, bufio.ErrTooLong) {
			readErr = tooLong("a line", limit)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok && readErr != nil {
				return readErr
			}
			out.entered()
			send, handled, quit := c.handle(l)
			if !ok || quit {
				if p := s.Pending(); len(p) > 0 {
					out.line(fmt.Sprintf("(%d sub-task(s) still running; their results will be in the conversation: a2abus chat --session %s)", len(p), s.ID()))
				}
				return nil
			}
			if handled || strings.TrimSpace(send) == "" {
				out.prompt()
				continue
			}
			if _, err := s.Send(ctx, send, nil); err != nil {
				return err
			}
		}
	}
}

// isTerminal reports whether r is a terminal (interactive chat).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminalWriter(f)
}
