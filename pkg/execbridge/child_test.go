// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/execbridge"
)

// childEnv makes the test binary run as the agent process (testChild)
// instead of the tests; its value is the mode: "card" sends a card, "nocard"
// none, "future" a card of a later protocol version, "silent" nothing at all.
const childEnv = "EXECBRIDGE_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(testChild(mode))
	}
	os.Exit(m.Run())
}

// childCard is the card the test child sends.
const childCard = `{"agentName":"GoChild","description":"the test child","version":"1.0","skills":[
 {"id":"echo","name":"Echo","description":"echoes"},{"id":"progress","name":"Progress","description":"reports progress"},
 {"id":"fail","name":"Fail","description":"fails"},{"id":"sleep","name":"Sleep","description":"waits for a cancel"},
 {"id":"call","name":"Call","description":"calls another agent"},{"id":"junk","name":"Junk","description":"breaks the protocol"},
 {"id":"crash","name":"Crash","description":"exits"},{"id":"gate","name":"Gate","description":"answers once n requests run at once"},
 {"id":"ask","name":"Ask","description":"asks how to greet, then greets from the history alone"},
 {"id":"login","name":"Login","description":"asks to authenticate"},{"id":"badask","name":"Bad ask","description":"asks a broken question"},
 {"id":"context","name":"Context","description":"reports the caller's context and narrowing"}]}`

// pidFileEnv names the file the "family" and "orphaning" children write
// their grandchild's pid to.
const pidFileEnv = "EXECBRIDGE_TEST_PIDFILE"

// startGrandchild starts a long sleep that inherits stdout, and writes its
// pid to the file pidFileEnv names.
func startGrandchild() error {
	cmd := exec.Command("sleep", "300")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	return os.WriteFile(os.Getenv(pidFileEnv), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
}

// testChild speaks the protocol on stdin and stdout, one goroutine per
// request, as any multiplexing agent process would.
func testChild(mode string) int {
	out := json.NewEncoder(os.Stdout)
	var wmu sync.Mutex
	send := func(f execbridge.Frame) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = out.Encode(f)
	}
	raw := func(line string) {
		wmu.Lock()
		defer wmu.Unlock()
		fmt.Fprintln(os.Stdout, line)
	}
	fmt.Fprintln(os.Stderr, "child starting")
	switch mode {
	case "card":
		send(execbridge.Frame{Type: execbridge.TypeAgentCard, Version: 1, Card: json.RawMessage(childCard)})
	case "future":
		send(execbridge.Frame{Type: execbridge.TypeAgentCard, Version: 99, Card: json.RawMessage(childCard)})
	case "crashy": // a card, then an exit: every run
		send(execbridge.Frame{Type: execbridge.TypeAgentCard, Card: json.RawMessage(childCard)})
		time.Sleep(50 * time.Millisecond)
		return 3
	case "silent":
		time.Sleep(time.Minute)
		return 0
	case "bigcard": // a card line far over the host's line limit, then silence
		card := strings.Replace(childCard, `"the test child"`, `"`+strings.Repeat("x", bigCardBytes)+`"`, 1)
		raw(`{"type":"agent.card","version":1,"card":` + card + `}`)
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "oversize":
		send(execbridge.Frame{Type: execbridge.TypeAgentCard, Card: json.RawMessage(childCard)})
	case "family", "orphaning": // a card, and a grandchild holding our stdout
		send(execbridge.Frame{Type: execbridge.TypeAgentCard, Card: json.RawMessage(childCard)})
		if err := startGrandchild(); err != nil {
			fmt.Fprintln(os.Stderr, "grandchild:", err)
			return 2
		}
		if mode == "orphaning" {
			return 3 // and leave it behind
		}
		signal.Ignore(syscall.SIGTERM) // deaf to SIGTERM and to the end of input: only SIGKILL stops it
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Minute)
		return 0
	}
	var (
		mu      sync.Mutex
		cancels = map[string]chan struct{}{}
		calls   = map[string]chan execbridge.Frame{}
		gate    = map[int][]string{} // request ids waiting at the gate, by n
	)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var f execbridge.Frame
		if err := json.Unmarshal(in.Bytes(), &f); err != nil {
			fmt.Fprintln(os.Stderr, "bad line from host:", err)
			continue
		}
		switch f.Type {
		case execbridge.TypeTaskCancel:
			fmt.Fprintln(os.Stderr, "cancel received for", f.RequestID)
			mu.Lock()
			if ch, ok := cancels[f.RequestID]; ok {
				close(ch)
				delete(cancels, f.RequestID)
			}
			mu.Unlock()
		case execbridge.TypeInvokeResult:
			if mode == "oversize" { // the answer to its over-long invoke
				send(execbridge.Frame{Type: execbridge.TypeTaskResult, RequestID: f.RequestID,
					Text: fmt.Sprintf("%s %s: %s: %s", f.CallID, f.Status, f.Code, f.Message)})
				continue
			}
			mu.Lock()
			ch := calls[f.CallID]
			mu.Unlock()
			if ch != nil {
				ch <- f
			}
		case execbridge.TypeTaskRequest:
			id := f.RequestID
			if mode == "oversize" {
				oversize(raw, f)
				continue
			}
			result := func(text string) {
				send(execbridge.Frame{Type: execbridge.TypeTaskResult, RequestID: id, Text: text})
			}
			switch f.Skill {
			case "echo":
				if _, err := time.Parse(time.RFC3339, f.Deadline); err != nil {
					send(execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: "INVALID_INPUT", Message: "bad deadline: " + err.Error()})
					continue
				}
				result(f.Text)
			case "progress":
				for _, p := range []float64{25, 75} {
					send(execbridge.Frame{Type: execbridge.TypeTaskProgress, RequestID: id, Message: fmt.Sprintf("at %v%%", p), Percent: &p})
				}
				send(execbridge.Frame{Type: execbridge.TypeTaskResult, RequestID: id, Text: "done", Data: json.RawMessage(`{"n":2}`),
					Confidence: "high", Warnings: []string{"just a test"}, Status: "PARTIAL"})
			case "fail":
				send(execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: "INVALID_INPUT", Message: "no good: " + f.Text})
			case "sleep":
				ch := make(chan struct{})
				mu.Lock()
				cancels[id] = ch
				mu.Unlock()
				send(execbridge.Frame{Type: execbridge.TypeTaskProgress, RequestID: id, Message: "sleeping"})
				go func() {
					<-ch
					send(execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: "CANCELED", Message: "cancelled by the host"})
				}()
			case "call":
				var target struct{ Agent, Skill, Text string }
				_ = json.Unmarshal(f.Input, &target)
				callID := "c-" + id
				ch := make(chan execbridge.Frame, 1)
				mu.Lock()
				calls[callID] = ch
				mu.Unlock()
				send(execbridge.Frame{Type: execbridge.TypeInvoke, RequestID: id, CallID: callID, Agent: target.Agent, Skill: target.Skill, Text: target.Text})
				go func() {
					r := <-ch
					if r.Status == "ERROR" {
						send(execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: r.Code, Message: "call failed: " + r.Message})
						return
					}
					result(fmt.Sprintf("%s said %q (task %s)", r.Agent, r.Text, r.SubTaskID))
				}()
			case "junk":
				raw("this is not json")
				raw(`{"no":"type"}`)
				raw(`{"type":"task.sing","request_id":"` + id + `"}`)
				raw(`{"type":"task.result","request_id":"nobody","text":"lost"}`)
				result("survived")
				raw(`{"type":"task.result","request_id":"` + id + `","text":"twice"}`)
			case "ask", "login", "badask":
				send(askFrame(f))
			case "context":
				said := make([]string, 0, len(f.CallerContext))
				for _, m := range f.CallerContext {
					said = append(said, m.Role+": "+m.Text)
				}
				result(fmt.Sprintf("context %v [%s] tools %v %s budget %d", f.CallerContext != nil, strings.Join(said, " | "),
					f.AllowedTools != nil, strings.Join(f.AllowedTools, ","), f.MaxContextTokens))
			case "crash":
				fmt.Fprintln(os.Stderr, "crashing on purpose")
				os.Exit(3)
			case "gate":
				var n int
				_ = json.Unmarshal(f.Input, &n)
				mu.Lock()
				gate[n] = append(gate[n], id)
				if len(gate[n]) == n {
					for _, waiting := range gate[n] {
						send(execbridge.Frame{Type: execbridge.TypeTaskResult, RequestID: waiting, Text: fmt.Sprintf("%d at once", n)})
					}
					delete(gate, n)
				}
				mu.Unlock()
			default:
				send(execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: "SKILL_NOT_SUPPORTED", Message: f.Skill})
			}
		}
	}
	return 0 // end of input: the host stops us
}

// bigCardBytes is how long the "bigcard" child's card description is: far
// over the host's default line limit (bus.max_message_bytes, 4 MiB).
const bigCardBytes = 20 << 20

// oversize answers request f with a line longer than the number of bytes
// f.Text says, its request_id last (a program's JSON library may
// put it anywhere): echo with a task.result, ask with a task.question,
// fail with a task.error, and
// progress with a task.progress followed by a short result, call with an
// invoke (whose answer is its result).
func oversize(raw func(string), f execbridge.Frame) {
	n, _ := strconv.Atoi(f.Text)
	big, id := strings.Repeat("x", n), strconv.Quote(f.RequestID)
	switch f.Skill {
	case "echo":
		raw(`{"type":"task.result","text":"` + big + `","confidence":"HIGH","request_id":` + id + `}`)
	case "fail":
		raw(`{"type":"task.error","message":"` + big + `","code":"INVALID_INPUT","request_id":` + id + `}`)
	case "progress":
		raw(`{"type":"task.progress","message":"` + big + `","request_id":` + id + `}`)
		raw(`{"type":"task.result","text":"after the long progress","request_id":` + id + `}`)
	case "ask":
		raw(`{"type":"task.question","text":"` + big + `","request_id":` + id + `}`)
	case "call":
		raw(`{"type":"invoke","agent":"Anyone","skill":"echo","text":"` + big + `","call_id":"c-big","request_id":` + id + `}`)
	}
}

// askFrame answers a request of the skills that ask, keeping nothing
// between turns: on turn 0 "ask" asks how to greet (two options), "login"
// asks to authenticate and "badask" asks with an option id the wire
// refuses; on a later turn the answer greets the name of the history's
// first message as answered, and lists the history and the context's.
func askFrame(f execbridge.Frame) execbridge.Frame {
	id := f.RequestID
	if f.Turn == 0 {
		switch f.Skill {
		case "login":
			return execbridge.Frame{Type: execbridge.TypeTaskQuestion, RequestID: id, Text: "sign in first",
				Auth: &a2a.AuthNeed{Scheme: "oauth2", Resource: "calendar", Scopes: []string{"read"}}}
		case "badask":
			return execbridge.Frame{Type: execbridge.TypeTaskQuestion, RequestID: id, Text: "which?", Options: []a2a.Option{{ID: "no spaces allowed", Label: "X"}}}
		}
		return execbridge.Frame{Type: execbridge.TypeTaskQuestion, RequestID: id, Text: "How shall I greet " + f.Text + "?",
			Options:     []a2a.Option{{ID: "formal", Label: "Formal"}, {ID: "casual", Label: "Casual", Description: "first names"}},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"style":{"type":"string"}}}`)}
	}
	if len(f.History) == 0 {
		return execbridge.Frame{Type: execbridge.TypeTaskError, RequestID: id, Code: "INVALID_INPUT", Message: "a later turn without history"}
	}
	greeting := "Hi"
	if f.Text == "formal" {
		greeting = "Good day"
	}
	lines := make([]string, 0, len(f.History))
	for _, m := range f.History {
		lines = append(lines, m.Role+": "+m.Text)
	}
	ctx := make([]string, 0, len(f.ContextHistory))
	for _, m := range f.ContextHistory {
		ctx = append(ctx, m.Role+": "+m.Text)
	}
	return execbridge.Frame{Type: execbridge.TypeTaskResult, RequestID: id,
		Text: fmt.Sprintf("%s, %s (turn %d; history: %s; context: %s)", greeting, f.History[0].Text, f.Turn, strings.Join(lines, " | "), strings.Join(ctx, " | "))}
}
