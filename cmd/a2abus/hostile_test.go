// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/converse"
)

// hostile clears the screen, sets the window title, moves up a line and
// returns the carriage to overwrite it, and sends a C1 CSI.
const hostile = "\x1b[2J\x1b]0;pwned\x07\x1b[1A\rFAKE: all good \u009b31mred\u009b0m"

// assertInert fails when out holds a control character that drives a
// terminal (ESC, BEL, CR, C1), or lacks the visible form of the clear-screen.
func assertInert(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\r\u009b") {
		t.Errorf("%s printed a raw control character:\n%q", what, out)
	}
	if !strings.Contains(out, `\x1b[2J`) {
		t.Errorf("%s does not show the escape visibly:\n%q", what, out)
	}
}

// TestHostileTextIsInertOnTheTerminal: the text of an agent — its status
// updates, result, artifacts and error message — is printed with its control
// characters made visible by invoke --wait, workflow run and show, history,
// conversation show and memory get.
func TestHostileTextIsInertOnTheTerminal(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, callerName, session := w.N("Hostile"), w.N("HostileCli"), "hostile-"+strings.ToLower(w.N("s"))
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "error", "DIRECTORY_WELL_KNOWN_FILE": wellKnownFile(t, agentName, "say", "fail")})
	startAgent(t, w, agentName, map[string]agent.Handler{
		"say": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			_ = task.Progress(ctx, hostile, 0.5)
			return &agent.Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, hostile),
				Artifacts: []*a2a.Artifact{{ID: "art", Name: hostile, Parts: []*a2a.Part{a2a.NewTextPart(hostile)}}}}, nil
		},
		"fail": func(context.Context, *agent.Task) (*agent.Result, error) { return nil, errors.New(hostile) },
	})

	code, out, errOut := runCLI(t, "invoke", agentName, "say", "x", "--wait", "--session", session, "--timeout", "20s")
	if code != 0 {
		t.Fatalf("invoke --wait: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "invoke --wait (result)", out)
	assertInert(t, "invoke --wait (status)", errOut)
	code, out, errOut = runCLI(t, "invoke", agentName, "fail", "x", "--wait", "--session", session, "--timeout", "20s")
	if code != exitTaskFailed {
		t.Fatalf("invoke fail: exit %d\n%s%s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07\r\u009b") || !strings.Contains(out, "(state=failed, memory key ") { // the error itself is on stderr only
		t.Errorf("invoke --wait (outcome on stdout):\n%q", out)
	}
	assertInert(t, "invoke --wait (error on stderr)", errOut)

	wf := filepath.Join(t.TempDir(), "hostile.yaml")
	src := fmt.Sprintf("name: hostile\nsteps:\n  - {id: say, agent: %s, skill: say, text: x}\n  - {id: boom, agent: %s, skill: fail, text: x}\n", agentName, agentName)
	if err := os.WriteFile(wf, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "workflow", "run", wf, "--run", "hostile-"+session)
	if code != exitTaskFailed {
		t.Fatalf("workflow run: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "workflow run (report)", out)
	assertInert(t, "workflow run (error)", errOut)
	code, out, errOut = runCLI(t, "workflow", "show", "hostile-"+session)
	if code != 0 {
		t.Fatalf("workflow show: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "workflow show", out)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := w.Memory.AppendTurn(ctx, session, memory.Turn{Role: "assistant", Content: hostile}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "conversation", "show", session)
	if code != 0 {
		t.Fatalf("conversation show: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "conversation show", out)
	if err := w.Memory.Set(ctx, "hostile/"+session, []byte(hostile), time.Hour); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "memory", "get", "hostile/"+session)
	if code != 0 {
		t.Fatalf("memory get: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "memory get", out)
	entry, _ := json.Marshal(map[string]string{"taskId": hostile, "caller": "C", "target": "T", "skill": "s", "status": "ERROR", "code": hostile})
	if err := w.Memory.Set(ctx, "session/"+session+"/calls/hostile", entry, time.Hour); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "history", session)
	if code != 0 {
		t.Fatalf("history: exit %d\n%s%s", code, out, errOut)
	}
	assertInert(t, "history", out)
}

// TestHostileConversationIsInert: converse's event lines and status print
// the agents' text with its control characters made visible.
func TestHostileConversationIsInert(t *testing.T) {
	var b strings.Builder
	cv := &converse.Conversation{ID: "cv1", Reason: hostile, Spec: converse.Spec{Local: "A", Remote: "B", Objective: hostile},
		Transcript: []converse.Entry{{Turn: 1, Role: "remote", Text: hostile}}}
	if err := printConversation(&b, cv, false); err != nil {
		t.Fatal(err)
	}
	assertInert(t, "converse status", b.String())
	b.Reset()
	eventPrinter(&b, false)(cv, converse.Event{Turn: 1, Kind: converse.EventReply, Text: hostile})
	assertInert(t, "converse event", b.String())
}
