// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

func TestHistoryOnEmbeddedMemoryIsEmpty(t *testing.T) {
	isolate(t, "")
	code, out, errOut := runCLI(t, "history", "s1", "--embedded")
	if code != 0 || out != "session s1 has no call history\n" || !strings.Contains(errOut, "embedded in-process store") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "history", "s1", "--json", "--embedded")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("--json: exit %d: %q", code, out)
	}
	for _, args := range [][]string{{"history", "../x"}, {"history"}, {"history", "a", "b"}} {
		if code, _, errOut := runCLI(t, args...); code != 1 || !strings.HasPrefix(errOut, "a2abus: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestHistoryAgainstRealServers records a refused call through `a2abus
// invoke` (a self-call: CYCLE_DETECTED) beside an entry of a finished call,
// and reads them back with `a2abus history`, as a table and as JSON.
func TestHistoryAgainstRealServers(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	callerName, session := w.N("HistCaller"), "hist-"+strings.ToLower(w.N("s"))
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn"})
	// A finished call, made a minute ago, that ended late with a secret in its error.
	earlier := time.Now().Add(-time.Minute).UTC()
	done := caller.HistoryEntry{Time: earlier.Add(1500 * time.Millisecond), CreatedAt: earlier, TaskID: uuid.NewString(),
		SessionID: session, Caller: "Planner", Target: "Researcher", Skill: "research", Status: "ERROR",
		State: a2a.TaskStateFailed, Code: a2a.CodeExecutionFailed, Error: "token=xxxxx", DurationMs: 1500, Late: true,
		Task: "find the 2025 papers on GCRA"}
	b, _ := json.Marshal(done)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Memory.Set(ctx, "session/"+session+"/calls/"+done.TaskID, b, time.Hour); err != nil {
		t.Fatal(err)
	}

	code, _, errOut := runCLI(t, "invoke", callerName, "echo", "hi", "--session", session, "--directory-wait", "0")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "CYCLE_DETECTED") {
		t.Fatalf("self-call: exit %d: %s", code, errOut)
	}

	code, out, errOut := runCLI(t, "history", session)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errOut)
	}
	t.Logf("a2abus history %s:\n%s", session, out)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[0], "DURATION") {
		t.Fatalf("history table:\n%s", out)
	}
	for _, want := range []string{"Planner → Researcher.research", done.TaskID, "ERROR (late)", "EXECUTION_FAILED", "1.5s"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("first row lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{callerName + " → " + callerName + ".echo", "REFUSED", "CYCLE_DETECTED"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("second row lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, "history", session, "--previews")
	if code != 0 || !strings.Contains(out, "task: find the 2025 papers on GCRA") || !strings.Contains(out, "error: token=xxxxx") ||
		!strings.Contains(out, "task: hi") {
		t.Fatalf("history --previews: exit %d:\n%s%s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "history", session, "--json")
	var entries []caller.HistoryEntry
	if code != 0 || json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 2 {
		t.Fatalf("history --json: exit %d: %s %s", code, out, errOut)
	}
	if entries[0].TaskID != done.TaskID || entries[1].Status != caller.HistoryRefused || entries[1].Code != a2a.CodeCycleDetected ||
		entries[1].SessionID != session || strings.Join(entries[1].Chain, ">") != callerName {
		t.Errorf("entries = %+v", entries)
	}
}

// A call's audit record reaches the stream (audit.export stream), and
// `a2abus audit` reads it back across sessions.
func TestAuditReadsTheStream(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	callerName, session := w.N("AuditCaller"), "aud-"+strings.ToLower(w.N("s"))
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn"})

	code, _, errOut := runCLI(t, "audit")
	if code != 0 || !strings.Contains(errOut, `audit.export is "none"`) {
		t.Fatalf("audit of an empty stream with export none: exit %d: %s", code, errOut)
	}
	t.Setenv("A2ABUS_AUDIT_EXPORT", "stream")
	code, _, errOut = runCLI(t, "invoke", callerName, "echo", "token=opensesame", "--session", session, "--directory-wait", "0")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "CYCLE_DETECTED") {
		t.Fatalf("self-call: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "audit", "--json")
	var rec struct {
		Kind string `json:"kind"`
		caller.HistoryEntry
	}
	if code != 0 || json.Unmarshal([]byte(strings.TrimSpace(out)), &rec) != nil {
		t.Fatalf("audit --json: exit %d: %q %s", code, out, errOut)
	}
	if rec.Kind != caller.AuditKind || rec.SessionID != session || rec.Status != caller.HistoryRefused || rec.Task != "token=xxxxx" {
		t.Errorf("record = %+v", rec)
	}
	code, out, errOut = runCLI(t, "audit", "--count", "5")
	if code != 0 || !strings.Contains(out, session) || !strings.Contains(out, "REFUSED") || !strings.Contains(out, "task: token=xxxxx") {
		t.Fatalf("audit: exit %d:\n%s%s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, "audit", "--count", "0"); code == 0 || !strings.Contains(errOut, "--count") {
		t.Errorf("audit --count 0: exit %d: %s", code, errOut)
	}
}
