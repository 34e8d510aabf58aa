// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// confirm asks with the options yes and no and completes with the answer;
// another answer is asked again; a task in the same context quotes the
// context's latest message; an empty text is INVALID_INPUT.
func TestConfirm(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")

	out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillConfirm, Text: "book the room", SessionID: "s-c"})
	q := out.Question()
	if !out.WaitingForInput() || q == nil || q.Text != "Confirm: book the room?" || len(q.Options) != 2 || q.Options[0] != OptionYes || q.Options[1] != OptionNo {
		t.Fatalf("confirm's first turn = %+v, want the question with yes and no", out.Result)
	}
	again, err := c.Continue(testCtx(t), caller.Reply{TaskID: out.TaskID, Text: "maybe"}, nil)
	if err != nil || !again.WaitingForInput() || !strings.Contains(again.Question().Text, `Please answer yes or no (got "maybe")`) || again.Turn != 1 {
		t.Fatalf("an answer that is neither = %+v, %v; want the question again", again, err)
	}
	final, err := c.Continue(testCtx(t), caller.Reply{TaskID: out.TaskID, Option: "yes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, final, "Confirmed: book the room")

	next, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillConfirm, Text: "send the agenda", SessionID: "s-c", ContextID: out.ContextID})
	if q := next.Question(); q == nil || q.Text != `Confirm: send the agenda? (earlier in this context, 2 message(s), the latest: "Confirmed: book the room")` {
		t.Fatalf("a follow-up in the context asks %+v", next.Result)
	}
	final, err = c.Continue(testCtx(t), caller.Reply{TaskID: next.TaskID, Text: "No."}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, final, "Not confirmed: send the agenda")

	empty, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillConfirm, Text: " "})
	wantCode(t, empty, a2a.CodeInvalidInput, "what to confirm")
}
