// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
)

// conv numbers turns in order.
func conv(turns ...memory.Turn) []memory.Turn {
	for i := range turns {
		turns[i].Seq = int64(i + 1)
	}
	return turns
}

func user(text string) memory.Turn {
	return memory.Turn{Role: memory.RoleUser, Content: text, Meta: map[string]string{chat.MetaKind: chat.KindUser}}
}

func answer(text string, handled int64) memory.Turn {
	return memory.Turn{Role: memory.RoleAssistant, Content: text, Meta: map[string]string{chat.MetaKind: chat.KindAnswer, chat.MetaHandledTo: strconv.FormatInt(handled, 10)}}
}

func calls(ids ...string) memory.Turn {
	var cs []llm.ToolCall
	for _, id := range ids {
		cs = append(cs, llm.ToolCall{ID: id, Name: "invoke_agent", Arguments: `{"agent_name":"A"}`})
	}
	raw, _ := json.Marshal(cs)
	return memory.Turn{Role: memory.RoleAssistant, Meta: map[string]string{chat.MetaKind: chat.KindToolCalls, chat.MetaToolCalls: string(raw)}}
}

func result(id, task string) memory.Turn {
	m := map[string]string{chat.MetaKind: chat.KindToolResult, chat.MetaToolCallID: id, chat.MetaTool: "invoke_agent"}
	if task != "" {
		m[chat.MetaStartedTask] = task
	}
	return memory.Turn{Role: memory.RoleTool, Content: `{"taskId":"` + task + `"}`, Meta: m}
}

func notification(task string) memory.Turn {
	return memory.Turn{Role: memory.RoleUser, Content: "[Agent 'A' completed task " + task + "]",
		Meta: map[string]string{caller.MetaKind: caller.KindNotification, caller.MetaTaskID: task}}
}

// shape is the roles of msgs, with the tool call ids: "user a(c1,c2) t:c1 t:c2".
func shape(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		switch {
		case len(m.ToolCalls) > 0:
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			parts = append(parts, "a("+strings.Join(ids, ",")+")")
		case m.Role == llm.RoleTool:
			parts = append(parts, "t:"+m.ToolCallID)
		default:
			parts = append(parts, m.Role[:1]+":"+m.Content)
		}
	}
	return strings.Join(parts, " ")
}

func TestHistoryMapsTurnsToValidMessages(t *testing.T) {
	started := map[string]int64{"T1": 4}
	cases := []struct {
		name  string
		turns []memory.Turn
		want  string
	}{
		{"results kept with their call, interleaved notification after the answer",
			conv(user("go"), calls("c1", "c2"), notification("T1"), result("c1", "T1"), result("c2", ""), answer("asked", 1)),
			"s:P u:go a(c1,c2) t:c1 t:c2 a:asked u:[Agent 'A' completed task T1]"},
		{"a call without all its results loses its calls, the orphan result goes",
			conv(user("go"), calls("c1", "c2"), result("c1", ""), answer("done", 1)),
			"s:P u:go a:done"},
		{"errors and foreign notifications are not shown",
			conv(user("go"), memory.Turn{Role: memory.RoleAssistant, Content: "boom", Meta: map[string]string{chat.MetaKind: chat.KindError, chat.MetaHandledTo: "1"}},
				notification("OTHER"), user("again")),
			"s:P u:go u:again"},
		{"a user turn typed during a run comes after its answer",
			conv(user("one"), calls("c1"), user("two"), result("c1", ""), answer("first", 1)),
			"s:P u:one a(c1) t:c1 a:first u:two"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := shape(chat.History("P", c.turns, started, 100, 1<<20)); got != c.want {
				t.Fatalf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestHistoryBounds(t *testing.T) {
	var turns []memory.Turn
	for i := range 10 {
		turns = append(turns, user("question "+strconv.Itoa(i)), answer("answer "+strconv.Itoa(i), int64(2*i+1)))
	}
	turns = append(turns, user("q"), calls("c1", "c2"), result("c1", ""), result("c2", ""))
	turns = conv(turns...)

	// Four turns: the newest user turn and the tool call with its two results.
	msgs := chat.History("P", turns, nil, 4, 1<<20)
	if got := shape(msgs[2:]); got != "u:q a(c1,c2) t:c1 t:c2" {
		t.Fatalf("kept %s", got)
	}
	if msgs[1].Role != llm.RoleSystem || !strings.Contains(msgs[1].Content, "20 earliest turns") ||
		!strings.Contains(msgs[1].Content, "user: question 0") || !strings.Contains(msgs[1].Content, "assistant: answer 9") {
		t.Fatalf("summary %q", msgs[1].Content)
	}
	// Three turns: the tool-call unit alone does not fit, yet the newest unit is always kept whole.
	msgs = chat.History("P", turns, nil, 3, 1<<20)
	if got := shape(msgs[2:]); got != "a(c1,c2) t:c1 t:c2" {
		t.Fatalf("kept %s", got)
	}
	// By characters: the answers are 8 characters, the questions 10.
	msgs = chat.History("", turns[:20], nil, 100, 36)
	if got := shape(msgs[1:]); got != "u:question 8 a:answer 8 u:question 9 a:answer 9" {
		t.Fatalf("kept %s", got)
	}
	if !strings.Contains(msgs[0].Content, "16 earliest") {
		t.Fatalf("summary %q", msgs[0].Content)
	}
	// The summary is bounded too: an eighth of the characters (at least 200), newest lines kept.
	long := conv(func() []memory.Turn {
		var ts []memory.Turn
		for i := range 50 {
			ts = append(ts, user(strings.Repeat("x", 300)+strconv.Itoa(i)))
		}
		return ts
	}()...)
	msgs = chat.History("", long, nil, 1, 1600)
	if len(msgs[0].Content) > 400 || !strings.Contains(msgs[0].Content, "oldest lines omitted") {
		t.Fatalf("summary of %d bytes: %q", len(msgs[0].Content), msgs[0].Content)
	}
}

// snakeCase renames t's meta keys to the snake_case a turn appended before
// turn meta became camelCase carries (tool_calls, tool_call_id, handled_to, task_id, …).
func snakeCase(t memory.Turn) memory.Turn {
	old := map[string]string{}
	for k, v := range t.Meta {
		old[memory.CamelToSnake(k)] = v
	}
	t.Meta = old
	return t
}

// TestHistoryReadsSnakeCaseMeta: a conversation stored before turn meta
// became camelCase (its tool calls, results, answers and notifications)
// gives the model the same history as one stored today.
func TestHistoryReadsSnakeCaseMeta(t *testing.T) {
	turns := conv(user("go"), calls("c1", "c2"), notification("T1"), result("c1", "T1"), result("c2", ""), answer("asked", 1), user("again"))
	old := make([]memory.Turn, len(turns))
	for i, tr := range turns {
		old[i] = snakeCase(tr)
	}
	if _, ok := old[1].Meta["tool_calls"]; !ok {
		t.Fatalf("the old form has no tool_calls: %v", old[1].Meta)
	}
	started := map[string]int64{"T1": 4}
	want := "s:P u:go a(c1,c2) t:c1 t:c2 a:asked u:[Agent 'A' completed task T1] u:again"
	for name, ts := range map[string][]memory.Turn{"camelCase": turns, "snake_case": old} {
		if got := shape(chat.History("P", ts, started, 100, 1<<20)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestChatMetaIsCamelCase: the meta keys of the turns a chat and the
// caller append are camelCase.
func TestChatMetaIsCamelCase(t *testing.T) {
	meta := map[string]string{}
	for _, k := range []string{chat.MetaKind, chat.MetaToolCalls, chat.MetaToolCallID, chat.MetaTool, chat.MetaToolError, chat.MetaStartedTask,
		chat.MetaHandledTo, chat.MetaError, chat.MetaErrorCode, chat.MetaModel, caller.MetaTaskID, caller.MetaAgent, caller.MetaMemoryKey,
		caller.MetaState, caller.MetaOutcome} {
		meta[k] = "v"
	}
	if bad := testenv.NotCamelCaseJSON(memory.Turn{Role: memory.RoleTool, Meta: meta}); len(bad) > 0 {
		t.Fatalf("turn meta keys: %q", bad)
	}
}
