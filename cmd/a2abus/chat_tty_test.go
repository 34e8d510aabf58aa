// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/llm"
)

// terminal is `a2abus chat` (the built binary) run in a pseudo-terminal:
// what a person typing into it sees.
type terminal struct {
	t      *testing.T
	pty    *os.File
	screen testenv.Buffer // everything the process wrote, escapes included
	exited chan error
}

// startTerminal runs the built a2abus with args on a new pseudo-terminal,
// in this test's environment.
func startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(testenv.Build(t, "./cmd/a2abus"), args...)
	cmd.Env = append(os.Environ(), "COLUMNS=200")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, pty: f, exited: make(chan error, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			_, _ = term.screen.Write(buf[:n])
			if err != nil {
				return // EIO once the process and its terminal are gone
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		<-copied
		term.exited <- err
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = f.Close()
	})
	return term
}

// typeLine types line and Enter.
func (term *terminal) typeLine(line string) {
	term.t.Helper()
	if _, err := term.pty.WriteString(line + "\r"); err != nil {
		term.t.Fatal(err)
	}
}

// see waits until the screen shows want after offset from, and returns
// the offset just past it.
func (term *terminal) see(from int, want string) int {
	term.t.Helper()
	var at int
	testenv.Eventually(term.t, "the terminal shows "+want, func() bool {
		at = strings.Index(term.screen.String()[from:], want)
		return at >= 0
	}, testenv.Explain(func() string { return term.screen.String() }))
	return from + at + len(want)
}

// wait waits for the process to exit and returns its error.
func (term *terminal) wait() error {
	term.t.Helper()
	select {
	case err := <-term.exited:
		return err
	case <-time.After(20 * time.Second):
		term.t.Fatalf("a2abus chat did not exit; the terminal shows:\n%q", term.screen.String())
		return nil
	}
}

// TestChatOnATerminal is `a2abus chat` as a person meets it, against the
// scripted model and a SampleAgent on the real servers: a prompt and no
// log line at start; /agents lists the directory; a message shows the
// thinking indicator, the tool call as one dim line, the answer and the
// answer to the sub-task's result; /tasks lists it completed; a mistyped
// command gets a did-you-mean and never reaches the model; /quit ends, exit 0.
func TestChatOnATerminal(t *testing.T) {
	w, sampleName, _ := chatWorld(t, "Tty")

	srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		last := req.Last()
		switch {
		case last.Role == "user" && strings.HasPrefix(last.Content, "[Agent"):
			return llmtest.Reply{Content: "the agent is done", Delay: 300 * time.Millisecond}
		case last.Role == "user" && strings.HasPrefix(last.Content, "/"):
			t.Errorf("a command reached the model: %q", last.Content)
		case last.Role == "user":
			return llmtest.Reply{Delay: 300 * time.Millisecond, // long enough for the thinking indicator to be drawn
				ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": sampleName, "skill": "echo", "message": last.Content})}}
		case last.Role == "tool":
			return llmtest.Reply{Content: "asked " + sampleName}
		}
		return llmtest.Reply{Content: "?"}
	})
	chatModel(t, srv)

	term := startTerminal(t, "chat", "--session", "tty-"+strings.ToLower(w.N("s")))
	at := term.see(0, "a2abus chat — session tty-")
	at = term.see(at, chatPrompt)
	if start := term.screen.String()[:at]; strings.Count(start, "\n") != 1 {
		t.Fatalf("more than the banner before the prompt (a log line?):\n%q", start)
	}

	testenv.Eventually(t, "/agents lists "+sampleName, func() bool { // the directory learns it from its announcement
		term.typeLine("/agents")
		at = term.see(at, chatPrompt)
		return strings.Contains(term.screen.String(), sampleName+" (online, 1 instance): echo")
	})

	term.typeLine("hello there")
	at = term.see(at, "thinking…")
	at = term.see(at, ansiDim+"→ invoke_agent "+sampleName+".echo"+ansiReset)
	term.see(at, "assistant> asked "+sampleName)
	term.see(at, "· "+sampleName+": task ") // its notification: it may come before the answer above
	at = term.see(at, "assistant> the agent is done")
	at = term.see(at, chatPrompt)
	if n := strings.Count(term.screen.String(), "→ invoke_agent"); n != 1 {
		t.Errorf("the tool call is shown %d times, want once", n)
	}

	term.typeLine("/tasks")
	at = term.see(at, sampleName+".echo  completed")
	term.typeLine("/agnts")
	term.see(at, "unknown command /agnts — did you mean /agents?")
	term.typeLine("/quit")
	if err := term.wait(); err != nil {
		t.Fatalf("exit: %v\n%q", err, term.screen.String())
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("the model was asked %d times, want 3 (the message, the tool result, the notification)", got)
	}
}

// TestChatOnATerminalModelDown: a model that cannot be reached is shown
// once, typed and naming the endpoint (its password and the API key
// hidden), while the thinking indicator ran through the retries; the
// prompt comes back and the chat goes on.
func TestChatOnATerminalModelDown(t *testing.T) {
	isolate(t, "")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/v1"
	_ = l.Close() // nothing listens there now: connection refused
	t.Setenv("A2ABUS_LLM_BASE_URL", "http://proxy-user:url-secret-1@"+l.Addr().String()+"/v1")
	t.Setenv("A2ABUS_LLM_API_KEY", "sk-key-secret-0123456789abcdef")
	t.Setenv("A2ABUS_LLM_MODEL", "scripted")
	t.Setenv("A2ABUS_LLM_MAX_RETRIES", "1")

	term := startTerminal(t, "chat", "--embedded", "--session", "tty-down")
	at := term.see(0, chatPrompt)
	term.typeLine("hi")
	at = term.see(at, "thinking…")
	at = term.see(at, "assistant (failed)> ")
	at = term.see(at, chatPrompt)
	term.typeLine("/tasks")
	term.see(at, "(no sub-tasks in this session yet)")
	term.typeLine("/quit")
	if err := term.wait(); err != nil {
		t.Fatalf("exit: %v\n%q", err, term.screen.String())
	}
	screen := term.screen.String()
	if n := strings.Count(screen, "connection refused"); n != 1 || !strings.Contains(screen, l.Addr().String()+"/v1") {
		t.Fatalf("the failure is shown %d times (want once, naming %s):\n%q", n, down, screen)
	}
	for _, secret := range []string{"url-secret-1", "sk-key-secret"} {
		if strings.Contains(screen, secret) {
			t.Errorf("the terminal shows the secret %q:\n%q", secret, screen)
		}
	}
}
