// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Figures are what the context filter kept of a conversation: turns,
// characters and estimated tokens (llm.EstimateTokens of each turn's
// content) before and after. The after figures count the summary too.
type Figures struct {
	TurnsBefore, TurnsAfter   int
	CharsBefore, CharsAfter   int
	TokensBefore, TokensAfter int
	// Summarized counts the dropped turns the summary stands for (0 without one).
	Summarized int
}

// Filtered is the context a task's model gets.
type Filtered struct {
	// Turns are the kept turns, oldest first, verbatim.
	Turns []memory.Turn
	// Summary is the extractive summary of the dropped turns ("" when none
	// was asked for or nothing was dropped).
	Summary string
	Figures Figures
}

// Bounds of the extractive summary.
const (
	// summaryLineChars bounds the sentence quoted from one dropped turn.
	summaryLineChars = 160
	// summaryShare is the part of the token budget the summary may take (1/4).
	summaryShare = 4
)

// FilterTurns picks the context of a task from its session's turns (oldest
// first), in this order: turns older than f.MaxAge before now are
// dropped; then turns whose role is not in f.Roles (notification turns have
// the role RoleNotification); then, with keywords, turns containing none of
// them (case-insensitive); then all but the newest f.LastMessages. With
// f.IncludeSummary the turns of the asked roles dropped so far are
// summarised (extractive: a sentence of each, newest first, within a
// quarter of the budget). Last the turns are fitted newest-first within
// maxTokens (minus the summary's) and f.MaxChars, stopping at the first that
// does not fit, so the newest turns are kept whole and in order.
// It is pure: same input, same output.
func FilterTurns(turns []memory.Turn, f ContextFilter, maxTokens int, now time.Time) Filtered {
	var out Filtered
	out.Figures.TurnsBefore = len(turns)
	for _, t := range turns {
		out.Figures.CharsBefore += utf8.RuneCountInString(t.Content)
		out.Figures.TokensBefore += llm.EstimateTokens(t.Content)
	}
	var kept, dropped []memory.Turn // dropped: of the asked roles only
	for _, t := range turns {
		if !slices.Contains(f.Roles, filterRole(t)) {
			continue
		}
		if (f.MaxAge > 0 && !t.Time.After(now.Add(-f.MaxAge))) || !hasKeyword(t.Content, f.Keywords) {
			dropped = append(dropped, t)
			continue
		}
		kept = append(kept, t)
	}
	if f.LastMessages > 0 && len(kept) > f.LastMessages {
		cut := len(kept) - f.LastMessages
		dropped = append(dropped, kept[:cut]...)
		kept = kept[cut:]
	}
	if f.IncludeSummary && len(dropped) > 0 {
		slices.SortStableFunc(dropped, func(a, b memory.Turn) int { return compareSeq(a, b) })
		out.Summary, out.Figures.Summarized = summarize(dropped, maxTokens/summaryShare, f.MaxChars/summaryShare)
	}
	tokens, chars := llm.EstimateTokens(out.Summary), utf8.RuneCountInString(out.Summary)
	first := len(kept)
	for i := len(kept) - 1; i >= 0; i-- {
		t := kept[i]
		tt, tc := llm.EstimateTokens(t.Content), utf8.RuneCountInString(t.Content)
		if tokens+tt > maxTokens || (f.MaxChars > 0 && chars+tc > f.MaxChars) {
			break
		}
		tokens, chars, first = tokens+tt, chars+tc, i
	}
	out.Turns = slices.Clone(kept[first:])
	out.Figures.TurnsAfter = len(out.Turns)
	out.Figures.CharsAfter, out.Figures.TokensAfter = chars, tokens
	return out
}

// filterRole is the role the filter sees: RoleNotification for the
// notification turns the caller injects, else the turn's role.
func filterRole(t memory.Turn) string {
	if t.Meta[caller.MetaKind] == caller.KindNotification {
		return RoleNotification
	}
	return t.Role
}

// hasKeyword reports whether text contains one of keywords (case-insensitive); true without keywords.
func hasKeyword(text string, keywords []string) bool {
	if len(keywords) == 0 {
		return true
	}
	lower := strings.ToLower(text)
	return slices.ContainsFunc(keywords, func(k string) bool { return strings.Contains(lower, strings.ToLower(k)) })
}

func compareSeq(a, b memory.Turn) int {
	switch {
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// summarize quotes the first sentence of each dropped turn, newest first,
// within maxTokens tokens and maxChars characters (0: no char bound), and
// returns them oldest first with how many turns they stand for.
func summarize(dropped []memory.Turn, maxTokens, maxChars int) (string, int) {
	head := fmt.Sprintf("%d earlier turns not shown; the first sentence of the latest of them:", len(dropped))
	if len(dropped) == 1 {
		head = "1 earlier turn not shown:"
	}
	used := llm.EstimateTokens(head)
	chars := utf8.RuneCountInString(head)
	var lines []string
	for i := len(dropped) - 1; i >= 0; i-- {
		line := fmt.Sprintf("- %s: %s", filterRole(dropped[i]), firstSentence(dropped[i].Content, summaryLineChars))
		lt, lc := llm.EstimateTokens(line)+1, utf8.RuneCountInString(line)+1 // +1: the newline
		if used+lt > maxTokens || (maxChars > 0 && chars+lc > maxChars) {
			break
		}
		used, chars = used+lt, chars+lc
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return "", 0
	}
	slices.Reverse(lines)
	return head + "\n" + strings.Join(lines, "\n"), len(dropped)
}

// firstSentence is text's first sentence (to the first '.', '!' or '?'
// before a space, or the line end), at most n characters, spaces collapsed.
func firstSentence(text string, n int) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	text = strings.Join(strings.Fields(text), " ")
	for i, r := range text {
		if strings.ContainsRune(".!?", r) && (i+1 == len(text) || text[i+1] == ' ') {
			text = text[:i+1]
			break
		}
	}
	if utf8.RuneCountInString(text) > n {
		text = string([]rune(text)[:n-1]) + "…"
	}
	return text
}
