// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Meta keys the chat loop sets on the turns it appends (MetaKind is the
// caller's "kind", shared with notification turns), camelCase; turns
// appended before carry the snake_case names, read by memory.MetaValue.
const (
	MetaKind = caller.MetaKind
	// MetaToolCalls is, on a KindToolCalls turn, the JSON array of the
	// model's calls ([]llm.ToolCall).
	MetaToolCalls = "toolCalls"
	// MetaToolCallID is, on a KindToolResult turn, the id of the call it answers.
	MetaToolCallID = "toolCallId"
	// MetaTool is, on a KindToolResult turn, the tool's name.
	MetaTool = "tool"
	// MetaToolError is "true" on a KindToolResult turn whose call failed.
	MetaToolError = "toolError"
	// MetaStartedTask is, on an invoke_agent KindToolResult turn, the id of
	// the sub-task it started: its notification is an input of the session.
	MetaStartedTask = "startedTask"
	// MetaAnsweredTask is, on an invoke_agent KindToolResult turn that
	// answered a sub-task's question (task_id), that sub-task's id; its
	// next notification is an input of the session again.
	MetaAnsweredTask = "answeredTask"
	// MetaAnsweredTurn is, with MetaAnsweredTask, the turn the answer started.
	MetaAnsweredTurn = "answeredTurn"
	// MetaHandledTo is, on a KindAnswer or KindError turn, the seq up to
	// which the session's input turns were handled by that answer.
	MetaHandledTo = "handledTo"
	// MetaError is, on a KindError turn, why the model could not answer.
	MetaError = "error"
	// MetaErrorCode is, on a KindError turn, a short code: model, budget,
	// tool_rounds, memory.
	MetaErrorCode = "errorCode"
	// MetaModel is, on a KindAnswer turn, the model that answered.
	MetaModel = "model"
)

// Values of MetaKind on the turns of a chat.
const (
	// KindUser marks a user's message sent through Session.Send.
	KindUser = "chat.user"
	// KindToolCalls marks an assistant turn that asks for tool calls.
	KindToolCalls = "chat.tool_calls"
	// KindToolResult marks the result of one tool call.
	KindToolResult = "chat.tool_result"
	// KindAnswer marks the model's answer: the last turn of a run.
	KindAnswer = "chat.answer"
	// KindError marks a run that failed (model down, budget spent, too many
	// tool rounds). It is shown to people, never sent to the model.
	KindError = "chat.error"
)

// handledTo returns the MetaHandledTo of t, 0 when it has none.
func handledTo(t memory.Turn) int64 {
	if t.Meta == nil {
		return 0
	}
	n, err := strconv.ParseInt(memory.MetaValue(t.Meta, MetaHandledTo), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// isNotification reports whether t is a notification turn of the caller.
func isNotification(t memory.Turn) bool { return t.Meta[MetaKind] == caller.KindNotification }

// toolCalls decodes the tool calls of a KindToolCalls turn.
func toolCalls(t memory.Turn) []llm.ToolCall {
	var calls []llm.ToolCall
	if raw := memory.MetaValue(t.Meta, MetaToolCalls); raw != "" {
		_ = json.Unmarshal([]byte(raw), &calls) // a bad meta: no calls, the turn becomes plain text
	}
	return calls
}

// unit is a run of turns that must stay together in the model's history:
// an assistant turn with tool calls and the results of all of them, or
// one turn.
type unit struct {
	msgs  []llm.Message
	turns int
	chars int
	// lines are the extractive summary lines of the unit.
	lines []string
}

func (u *unit) add(m llm.Message) {
	u.msgs = append(u.msgs, m)
	u.turns++
	u.chars += len(m.Content)
	for _, c := range m.ToolCalls {
		u.chars += len(c.Name) + len(c.Arguments)
	}
}

// buildUnits maps the turns of a conversation to the model's messages, in
// units. Left out: KindError turns, notifications about tasks the
// conversation did not start (started: task id → seq of the turn that
// started it), tool results whose call is not in the conversation, and the
// tool calls of an assistant turn whose results are not all there (its
// text is kept). A tool result stored after a turn that came in between
// (a notification appended while the step was written) is moved back
// next to its call, and a notification that arrived before the turn that
// records its task's start (or the answer that started its turn) is moved after it.
func buildUnits(turns []memory.Turn, started map[string]int64) []unit {
	turns = inputsAfterAnswers(turns)
	results := map[string]memory.Turn{} // tool call id → result turn
	for _, t := range turns {
		if id := memory.MetaValue(t.Meta, MetaToolCallID); t.Role == memory.RoleTool && id != "" {
			if _, dup := results[id]; !dup {
				results[id] = t
			}
		}
	}
	answerAt := map[string]int64{} // "<task>/<turn>" → seq of the tool result of the answer that started that turn
	for _, t := range turns {
		if id := memory.MetaValue(t.Meta, MetaAnsweredTask); t.Role == memory.RoleTool && id != "" {
			answerAt[id+"/"+memory.MetaValue(t.Meta, MetaAnsweredTurn)] = t.Seq
		}
	}
	used := map[string]bool{}
	deferred := map[int64][]memory.Turn{} // seq of a start turn → notifications waiting for it
	placedResults := map[int64]bool{}     // seqs of the tool results placed so far
	var units []unit
	emit := func(t memory.Turn) {
		switch {
		case t.Meta[MetaKind] == KindError:
			return
		case isNotification(t):
			id := memory.MetaValue(t.Meta, caller.MetaTaskID)
			at, ok := started[id]
			if !ok {
				return
			}
			if a, ok := answerAt[id+"/"+memory.MetaValue(t.Meta, caller.MetaTurn)]; ok {
				at = a // a later turn's end follows the answer that started the turn
			}
			if !placedResults[at] {
				deferred[at] = append(deferred[at], t)
				return
			}
			units = append(units, notificationUnit(t))
		case t.Role == memory.RoleTool:
			return // placed with its call
		case t.Role == memory.RoleAssistant && t.Meta[MetaKind] == KindToolCalls:
			calls := toolCalls(t)
			complete := len(calls) > 0
			for _, c := range calls {
				if _, ok := results[c.ID]; !ok || used[c.ID] {
					complete = false
				}
			}
			if !complete {
				if t.Content != "" {
					units = append(units, single(llm.Message{Role: llm.RoleAssistant, Content: t.Content}, "assistant: "+t.Content))
				}
				return
			}
			var u unit
			u.add(llm.Message{Role: llm.RoleAssistant, Content: t.Content, ToolCalls: calls})
			if t.Content != "" {
				u.lines = append(u.lines, "assistant: "+t.Content)
			}
			var after []memory.Turn
			for _, c := range calls {
				r := results[c.ID]
				used[c.ID] = true
				placedResults[r.Seq] = true
				u.add(llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: r.Content})
				u.lines = append(u.lines, fmt.Sprintf("called %s(%s) → %s", c.Name, c.Arguments, r.Content))
				after = append(after, deferred[r.Seq]...)
				delete(deferred, r.Seq)
			}
			units = append(units, u)
			for _, n := range after {
				units = append(units, notificationUnit(n))
			}
		default:
			role := t.Role
			if role != llm.RoleUser && role != llm.RoleAssistant && role != llm.RoleSystem {
				role = llm.RoleUser
			}
			units = append(units, single(llm.Message{Role: role, Content: t.Content}, role+": "+t.Content))
		}
	}
	for _, t := range turns {
		emit(t)
	}
	return units
}

// inputsAfterAnswers moves each user turn (typed, or a notification) that
// came while a run was going — after the run's mark, before its answer —
// to just after that answer: the model sees it where it was handled, and
// never between its own steps. Returns a reordered copy when needed.
func inputsAfterAnswers(turns []memory.Turn) []memory.Turn {
	type placed struct {
		at    int64 // the seq of the answer it follows, or its own
		after bool  // moved after the turn at
		idx   int
	}
	var answers []int // indexes of the answers and failures
	for i, t := range turns {
		if k := t.Meta[MetaKind]; k == KindAnswer || k == KindError {
			answers = append(answers, i)
		}
	}
	pos := make([]placed, len(turns))
	moved := false
	next := 0 // the first answer after the turn at hand
	for i, t := range turns {
		pos[i] = placed{at: t.Seq, idx: i}
		for next < len(answers) && answers[next] <= i {
			next++
		}
		if t.Role != memory.RoleUser {
			continue
		}
		// The answers after t that did not handle it come before the one that
		// did (the marks grow): usually none, or the one of the run it raced.
		for _, j := range answers[next:] {
			if handledTo(turns[j]) >= t.Seq {
				break
			}
			pos[i].at, pos[i].after, moved = turns[j].Seq, true, true
		}
	}
	if !moved {
		return turns
	}
	slices.SortStableFunc(pos, func(a, b placed) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.after != b.after { // at one place, the answer first, then the inputs moved after it, in order
			return map[bool]int{false: -1, true: 1}[a.after]
		}
		return cmp.Compare(a.idx, b.idx)
	})
	out := make([]memory.Turn, len(turns))
	for i, p := range pos {
		out[i] = turns[p.idx]
	}
	return out
}

// notificationUnit is a notification as the model sees it: a user message.
func notificationUnit(t memory.Turn) unit {
	return single(llm.Message{Role: llm.RoleUser, Content: t.Content}, "notification: "+t.Content)
}

func single(m llm.Message, line string) unit {
	var u unit
	u.add(m)
	u.lines = []string{line}
	return u
}

// Bounds of the history sent to the model.
type bounds struct {
	maxTurns, maxChars int
}

// summaryLineRunes bounds one line of the summary of dropped turns.
const summaryLineRunes = 160

// bound keeps the newest units within b (always the newest one, however
// large) and summarises the dropped ones extractively into one system
// message of at most an eighth of maxChars (its newest lines first kept):
// it returns the summary ("" when nothing was dropped) and the kept messages.
func bound(units []unit, b bounds) (summary string, kept []llm.Message, dropped int) {
	turns, chars := 0, 0
	first := len(units)
	for i := len(units) - 1; i >= 0; i-- {
		u := units[i]
		if first < len(units) && (turns+u.turns > b.maxTurns || chars+u.chars > b.maxChars) {
			break
		}
		turns += u.turns
		chars += u.chars
		first = i
	}
	for _, u := range units[first:] {
		kept = append(kept, u.msgs...)
	}
	if first == 0 {
		return "", kept, 0
	}
	var lines []string
	for _, u := range units[:first] {
		dropped += u.turns
		for _, l := range u.lines {
			lines = append(lines, "- "+clip(l, summaryLineRunes))
		}
	}
	limit := max(b.maxChars/8, 200)
	size, start := 0, len(lines)
	for start > 0 && size+len(lines[start-1])+1 <= limit {
		start--
		size += len(lines[start]) + 1
	}
	head := fmt.Sprintf("Summary of the %d earliest turns of this conversation, no longer shown in full", dropped)
	if start > 0 {
		head += fmt.Sprintf(" (%d oldest lines omitted)", start)
	}
	return head + ":\n" + strings.Join(lines[start:], "\n"), kept, dropped
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// History is the model's view of a conversation: the system prompt, a
// summary of the turns beyond the bounds (if any), then the newest turns
// verbatim, an assistant's tool calls never split from their results.
func History(prompt string, turns []memory.Turn, started map[string]int64, maxTurns, maxChars int) []llm.Message {
	summary, kept, _ := bound(buildUnits(turns, started), bounds{maxTurns: maxTurns, maxChars: maxChars})
	out := make([]llm.Message, 0, len(kept)+2)
	if prompt != "" {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: prompt})
	}
	if summary != "" {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: summary})
	}
	return append(out, kept...)
}
