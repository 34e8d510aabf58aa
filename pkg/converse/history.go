// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"fmt"
	"strings"
)

// HistoryTurn is one message of the bounded history given to the local agent.
type HistoryTurn struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// Constraints are the bounds the local agent is asked to respect.
type Constraints struct {
	MaxOutputChars  int   `json:"maxOutputChars"`
	MaxHistoryTurns int   `json:"maxHistoryTurns"`
	MaxHistoryChars int   `json:"maxHistoryChars"`
	LocalTimeoutMs  int64 `json:"localTurnTimeoutMs"`
	// AllowToolUse says whether the local agent may use tools for the draft.
	AllowToolUse bool `json:"allowToolUse"`
}

// DraftRequest is the structured input of a draft request: the protocol's
// local prompt frame.
type DraftRequest struct {
	ConversationID string        `json:"conversationId"`
	TurnIndex      int           `json:"turnIndex"`
	Mode           Mode          `json:"mode"`
	Objective      string        `json:"objective"`
	Remote         string        `json:"remoteAgent"`
	RemoteMessage  string        `json:"remoteMessage,omitempty"`
	History        []HistoryTurn `json:"history"`
	HistorySummary string        `json:"historySummary,omitempty"`
	Constraints    Constraints   `json:"constraints"`
}

// summaryExcerpt is how much of each dropped message the summary keeps.
const summaryExcerpt = 80

// maxSummaryChars bounds the summary of dropped turns.
const maxSummaryChars = 2000

// BoundHistory returns the newest entries of transcript that fit both
// maxTurns and maxChars — the latest remote message excluded, it goes
// verbatim in remoteMessage — oldest first, and a summary of the ones
// dropped ("" when none was). The result depends only on its arguments.
func BoundHistory(transcript []Entry, maxTurns, maxChars int) (kept []HistoryTurn, summary string, latestRemote string) {
	entries := transcript
	if n := len(entries); n > 0 && entries[n-1].Role == RoleRemote {
		latestRemote = entries[n-1].Text
		entries = entries[:n-1]
	}
	start, chars := len(entries), 0
	for start > 0 {
		e := entries[start-1]
		if len(entries)-start+1 > maxTurns || chars+len(e.Text) > maxChars {
			break
		}
		chars += len(e.Text)
		start--
	}
	for _, e := range entries[start:] {
		kept = append(kept, HistoryTurn{Role: e.Role, Text: e.Text})
	}
	return kept, summarize(entries[:start]), latestRemote
}

// summarize describes dropped entries compactly: their count per role and
// the start of each, within maxSummaryChars.
func summarize(dropped []Entry) string {
	if len(dropped) == 0 {
		return ""
	}
	count := map[string]int{}
	for _, e := range dropped {
		count[e.Role]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d earlier messages omitted (%d local, %d remote, %d human):", len(dropped),
		count[RoleLocal], count[RoleRemote], count[RoleHuman])
	for _, e := range dropped {
		line := fmt.Sprintf(" [turn %d %s] %s;", e.Turn, e.Role, excerpt(e.Text, summaryExcerpt))
		if b.Len()+len(line) > maxSummaryChars-4 {
			b.WriteString(" …")
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// excerpt is the first n bytes of s on one line, cut at a rune boundary.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// cut shortens s to at most n bytes at a rune boundary; it reports whether it did.
func cut(s string, n int) (string, bool) {
	if n <= 0 || len(s) <= n {
		return s, false
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// draftRequest builds the draft request of the conversation's next turn.
func draftRequest(c *Conversation, turn int) DraftRequest {
	h := c.Spec.History
	kept, summary, latest := BoundHistory(c.Transcript, h.MaxTurns, h.MaxChars)
	return DraftRequest{
		ConversationID: c.ID, TurnIndex: turn, Mode: c.Spec.Mode, Objective: c.Spec.Objective,
		Remote: c.Spec.Remote, RemoteMessage: latest, History: kept, HistorySummary: summary,
		Constraints: Constraints{
			MaxOutputChars: h.MaxOutputChars, MaxHistoryTurns: h.MaxTurns, MaxHistoryChars: h.MaxChars,
			LocalTimeoutMs: c.Spec.Limits.LocalTimeout.Milliseconds(), AllowToolUse: c.Spec.AllowToolUse,
		},
	}
}

// Prompt renders r as the text of the draft request, for agents that read
// only text (an LLM agent): the same content as the structured input.
func (r DraftRequest) Prompt() string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are talking with the agent %s on behalf of a person.\nObjective: %s\n", r.Remote, r.Objective)
	fmt.Fprintf(&b, "Turn %d. Write only the next message to send to %s (at most %d characters).\n",
		r.TurnIndex, r.Remote, r.Constraints.MaxOutputChars)
	if r.HistorySummary != "" {
		fmt.Fprintf(&b, "\nSummary of earlier messages: %s\n", r.HistorySummary)
	}
	if len(r.History) > 0 {
		b.WriteString("\nConversation so far:\n")
		for _, t := range r.History {
			fmt.Fprintf(&b, "[%s] %s\n", t.Role, t.Text)
		}
	}
	if r.RemoteMessage != "" {
		fmt.Fprintf(&b, "\nLatest message from %s:\n%s\n", r.Remote, r.RemoteMessage)
	}
	return b.String()
}
