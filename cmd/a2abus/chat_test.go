// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// chatModel makes the chat command's model (llm.*) the scripted server until the test ends.
func chatModel(t *testing.T, srv *llmtest.Server) {
	t.Setenv("A2ABUS_LLM_BASE_URL", srv.URL)
	t.Setenv("A2ABUS_LLM_MODEL", "scripted")
}

func TestChatWithoutAModel(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "chat", "--message", "hi", "--session", "no-model", "--embedded")
	if code != 1 || out != "" || !strings.Contains(errOut, "llm.base_url") || !strings.Contains(errOut, "A2ABUS_LLM_BASE_URL") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	for _, args := range [][]string{{"chat", "--message", "hi", "--session", "../x"}, {"chat", "--message", " ", "--session", "s"}, {"chat", "--message", "hi", "--timeout", "0s"}} {
		if code, _, errOut := runCLI(t, append(args, "--embedded")...); code != 1 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

var chatKey = regexp.MustCompile(`key '([^']+)'`)

// TestChatMessageAgainstRealServers drives `a2abus chat --message` end to
// end on the real servers with a SampleAgent in this process: the RockBot
// flow exits 0 and prints both answers; a sub-task that fails exits 2; a
// model that fails, fed by piped standard input, exits 2.
func TestChatMessageAgainstRealServers(t *testing.T) {
	w, sampleName, callerName := chatWorld(t, "Chat")

	srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
		last := req.Last()
		switch {
		case last.Role == "user" && strings.HasPrefix(last.Content, "[Agent"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("get_from_working_memory", map[string]string{"key": chatKey.FindStringSubmatch(last.Content)[1]})}}
		case last.Role == "user" && strings.HasPrefix(last.Content, "model down"):
			return llmtest.Reply{Status: 500}
		case last.Role == "user":
			skill, _, _ := strings.Cut(last.Content, " ")
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": sampleName, "skill": skill, "message": "disk on fire"})}}
		case last.Role == "tool" && strings.Contains(last.Content, `"memoryKey"`) && strings.Contains(last.Content, `"note"`):
			return llmtest.Reply{Content: "asked " + sampleName}
		case last.Role == "tool":
			return llmtest.Reply{Content: "result: " + strings.Join(regexp.MustCompile(`disk on fire`).FindAllString(last.Content, 1), "")}
		}
		t.Errorf("unexpected request, last %+v", last)
		return llmtest.Reply{Content: "?"}
	})
	chatModel(t, srv)
	session := "chat-cli-" + strings.ToLower(w.N("s"))

	// The directory of the chat learns the agent from its announcement at start.
	code, out, errOut := runCLI(t, "chat", "--session", session, "--message", "echo this", "--timeout", "20s")
	if code != 0 || out != "asked "+sampleName+"\nresult: disk on fire\n" {
		t.Fatalf("echo: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "· "+sampleName+": task ") {
		t.Errorf("no notification line on stderr: %q", errOut)
	}
	code, out, _ = runCLI(t, "conversation", "show", session)
	for _, want := range []string{"[user] echo this", "[tool] {\"taskId\"", "[assistant] asked " + sampleName, "[user] [Agent '" + sampleName + "' completed", "[assistant] result: disk on fire"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("conversation show lacks %q: exit %d\n%s", want, code, out)
		}
	}

	code, out, errOut = runCLI(t, "chat", "--session", session, "--message", "fail now", "--timeout", "20s")
	if code != exitTaskFailed || !strings.Contains(out, "asked "+sampleName) || !strings.Contains(errOut, "sub-task") || !strings.Contains(errOut, "FAILED") {
		t.Fatalf("failing sub-task: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}

	// The session is this caller's: another caller's chat on it is refused
	// before the user's turn is written (exit 3).
	t.Setenv("A2ABUS_CALLER_NAME", w.N("Intruder"))
	code, out, errOut = runCLI(t, "chat", "--session", session, "--message", "echo mine now", "--timeout", "20s")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "FORBIDDEN") || strings.Contains(out, "asked") {
		t.Fatalf("another caller's chat on the session: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	t.Setenv("A2ABUS_CALLER_NAME", callerName)

	var stdout, stderr bytes.Buffer
	root := newRootCmd(&stdout, &stderr)
	root.SetIn(strings.NewReader("model down, please\n"))
	code = cliutil.Execute(root, []string{"chat", "--session", session, "--timeout", "20s"}, &stderr)
	if code != exitTaskFailed || stdout.String() != "" || !strings.Contains(stderr.String(), "could not answer") || !strings.Contains(stderr.String(), srv.URL) {
		t.Fatalf("model down: exit %d\nstdout %q\nstderr %s", code, stdout.String(), stderr.String())
	}
}

// chatWorld is a private world on the real servers with a SampleAgent
// running in this test, and the configuration of the chat command (this
// process's, and the binary's it starts) pointed at it with its own
// caller name; the names are prefix + Sample and prefix + Cli.
func chatWorld(t *testing.T, prefix string) (w *testworld.World, sampleName, callerName string) {
	t.Helper()
	isolate(t, "")
	w = testworld.Real(t)
	sampleName, callerName = w.N(prefix+"Sample"), w.N(prefix+"Cli")
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn", "DIRECTORY_WELL_KNOWN_FILE": "", "DIRECTORY_KNOWN_AGENTS_FILE": ""})
	b, err := rabbitmq.Dial(context.Background(), rabbitmq.Options{URL: w.AMQPURL, Exchange: w.Exchange})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() }) // after the agent stops (cleanups run last in, first out)
	sampletest.Start(t, b, sampleName)
	return w, sampleName, callerName
}

// TestChatInteractive types lines into the interactive loop: each answer
// is printed as it lands; /quit ends.
func TestChatInteractive(t *testing.T) {
	s, p, out := ttyChat(t, "tty", "hello, human")
	in, typed := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- chatInteractive(context.Background(), &chatCommands{s: s, directory: noAgents{}, out: p}, in, 1<<20)
	}()
	if _, err := io.WriteString(typed, "hi there\n\n"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the answer is printed", func() bool { return strings.Contains(out.String(), "assistant> hello, human\n") })
	if _, err := io.WriteString(typed, "/quit\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "a2abus chat — session tty") || strings.Count(got, "assistant>") != 1 {
		t.Fatalf("output %q", got)
	}
}

// ttyChat runs a chat session on an embedded world whose model answers
// reply, its events printed as on a terminal into out; its Run may end
// with the errors ignore names.
func ttyChat(t *testing.T, session, reply string, ignore ...error) (s *chat.Session, p *chatPrinter, out *testenv.Buffer) {
	t.Helper()
	w := testworld.Embedded(t)
	srv := llmtest.New(t, llmtest.Reply{Content: reply})
	c, err := caller.New(caller.Options{Name: "Cli", Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	out = &testenv.Buffer{}
	p = newChatPrinter(out, out, true, false)
	t.Cleanup(p.close)
	s, err = chat.New(chat.Options{SessionID: session, Model: llmtest.Client(t, srv.URL, "scripted"), Caller: c, Agents: noAgents{}, Memory: w.Memory, OnEvent: p.event})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, s, ignore...)
	return s, p, out
}

type noAgents struct{}

func (noAgents) ListAgents(string, string) []tools.AgentInfo { return nil }

// TestChatInputOverTheBoundIsRefused: piped input or a --message longer
// than chat.max_input_bytes is refused with an error naming the bound —
// not cut and sent — and the model is never asked.
func TestChatInputOverTheBoundIsRefused(t *testing.T) {
	isolate(t, "")
	srv := llmtest.NewFunc(t, func(llmtest.Request) llmtest.Reply {
		t.Error("the model was asked")
		return llmtest.Reply{Content: "?"}
	})
	chatModel(t, srv)
	var stdout, stderr bytes.Buffer
	root := newRootCmd(&stdout, &stderr)
	root.SetIn(strings.NewReader(strings.Repeat("x", 1<<20) + "y"))
	code := cliutil.Execute(root, []string{"chat", "--session", "too-long", "--embedded"}, &stderr)
	if code != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "standard input: the message is longer than chat.max_input_bytes (1048576 bytes); nothing was sent") {
		t.Fatalf("piped: exit %d\nstdout %q\nstderr %s", code, stdout.String(), stderr.String())
	}
	t.Setenv("A2ABUS_CHAT_MAX_INPUT_BYTES", "10")
	code, out, errOut := runCLI(t, "chat", "--session", "too-long", "--message", "eleven char", "--embedded")
	if code != 1 || out != "" || !strings.Contains(errOut, "--message: the message is longer than chat.max_input_bytes (10 bytes)") {
		t.Fatalf("--message: exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
}

// TestChatInteractiveLineOverTheBound: an interactive line longer than the
// bound ends the chat with an error naming it (it used to end silently).
func TestChatInteractiveLineOverTheBound(t *testing.T) {
	s, p, out := ttyChat(t, "tty-long", "short answer", chat.ErrClosed) // the refusal may close it before Run began
	err := chatInteractive(context.Background(), &chatCommands{s: s, directory: noAgents{}, out: p}, strings.NewReader("0123456789\n0123456789A\n"), 10)
	if err == nil || !strings.Contains(err.Error(), "a line: the message is longer than chat.max_input_bytes (10 bytes)") {
		t.Fatalf("err = %v, output %q", err, out.String())
	}
}

// TestChatAnswerIsInert: the model's answer is printed with its control
// characters made visible.
func TestChatAnswerIsInert(t *testing.T) {
	isolate(t, "")
	chatModel(t, llmtest.New(t, llmtest.Reply{Content: hostile}))
	code, out, errOut := runCLI(t, "chat", "--session", "hostile-chat", "--message", "hi", "--embedded", "--timeout", "20s")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	assertInert(t, "chat", out)
}
