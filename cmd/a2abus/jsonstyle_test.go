// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// TestPrintedJSONIsCamelCase: what invoke --json, invoke --wait --json (and
// wait --json, a question included), reply --json, workflow run --json and
// a failed command's --json print has camelCase names only, like the wire.
func TestPrintedJSONIsCamelCase(t *testing.T) {
	inv := caller.Invocation{TaskID: "t1", SessionID: "s1", Target: "A", MemoryKey: "session/s1/a2a/A/t1/result", Deadline: time.Now()}
	out := &caller.Outcome{Invocation: inv, Result: &caller.StoredResult{TaskID: "t1", Agent: "A", SessionID: "s1", State: a2a.TaskStateCompleted,
		Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "x"), StoredAt: time.Now()}}
	asked := &caller.Outcome{Invocation: inv, Result: &caller.StoredResult{TaskID: "t1", Agent: "A", SessionID: "s1", State: a2a.TaskStateInputRequired,
		Question: &a2a.Question{Text: "which?", Options: []a2a.Option{{ID: "1", Label: "One"}}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		AnswerBy: time.Now(), ContextID: "c1", StoredAt: time.Now()}}
	var printed []json.RawMessage
	for _, print := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return printInvocation(b, inv, true) },
		func(b *bytes.Buffer) error { return printOutcome(b, out, true) },
		func(b *bytes.Buffer) error { return printOutcome(b, asked, true) },
		func(b *bytes.Buffer) error { return printAnswered(b, inv, true) },
		func(b *bytes.Buffer) error { return json.NewEncoder(b).Encode(runSubmitted(inv)) },
		func(b *bytes.Buffer) error {
			root := &cobra.Command{Use: "a2abus", RunE: func(*cobra.Command, []string) error { return errors.New("boom") }}
			root.SetOut(b)
			root.Flags().Bool("json", false, "")
			cliutil.Execute(root, []string{"--json"}, &bytes.Buffer{})
			return nil
		},
	} {
		var b bytes.Buffer
		if err := print(&b); err != nil {
			t.Fatal(err)
		}
		printed = append(printed, json.RawMessage(bytes.TrimSpace(b.Bytes())))
	}
	for i, p := range printed {
		if len(p) == 0 {
			t.Fatalf("output %d is empty", i)
		}
		if bad := testenv.NotCamelCaseJSON(p); len(bad) > 0 {
			t.Errorf("output %d %s: %q", i, p, bad)
		}
	}
}
