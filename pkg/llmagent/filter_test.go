// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

var now = time.Date(2026, 2, 11, 12, 0, 0, 0, time.UTC)

// conversation is seed 002's planner session: old turns, a tool call and
// its result, a notification, and the recent user/assistant exchange.
func conversation() []memory.Turn {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	notif := map[string]string{caller.MetaKind: caller.KindNotification, caller.MetaTaskID: "t1"}
	return []memory.Turn{
		{Seq: 1, Role: "user", Content: "Old question about logging.", Time: ago(30 * time.Minute)},
		{Seq: 2, Role: "assistant", Content: "Old answer about logging.", Time: ago(29 * time.Minute)},
		{Seq: 3, Role: "user", Content: "Implement user_auth in src/auth/user.rs. Then test it.", Time: ago(9 * time.Minute)},
		{Seq: 4, Role: "assistant", Content: "I will ask the coder.", Time: ago(8 * time.Minute)},
		{Seq: 5, Role: "tool", Content: `{"taskId":"t1","status":"submitted"}`, Time: ago(8 * time.Minute)},
		{Seq: 6, Role: "user", Content: "[Agent 'Coder' completed task t1]", Time: ago(7 * time.Minute), Meta: notif},
		{Seq: 7, Role: "user", Content: "Use bcrypt with cost 12.", Time: ago(5 * time.Minute)},
		{Seq: 8, Role: "assistant", Content: "Noted: bcrypt, cost 12.", Time: ago(4 * time.Minute)},
		{Seq: 9, Role: "user", Content: "Also validate email addresses.", Time: ago(time.Minute)},
	}
}

func seqs(turns []memory.Turn) []int64 {
	out := make([]int64, len(turns))
	for i, t := range turns {
		out[i] = t.Seq
	}
	return out
}

// seedFilter is seed 002's example: last 3 user/assistant messages of the
// last 600 s, within 6000 tokens.
func seedFilter() ContextFilter {
	return ContextFilter{LastMessages: 3, Roles: []string{"user", "assistant"}, MaxAge: 600 * time.Second}
}

func TestFilterSeedExample(t *testing.T) {
	in := conversation()
	orig := slices.Clone(in)
	got := FilterTurns(in, seedFilter(), 6000, now)
	if !slices.Equal(seqs(got.Turns), []int64{7, 8, 9}) {
		t.Fatalf("kept %v, want the last 3 user/assistant turns 7, 8, 9", seqs(got.Turns))
	}
	// Before: 9 turns; the characters and tokens of every turn.
	charsBefore, tokensBefore := 0, 0
	for _, turn := range in {
		charsBefore += len(turn.Content)
		tokensBefore += (len(turn.Content) + 3) / 4
	}
	want := Figures{TurnsBefore: 9, TurnsAfter: 3, CharsBefore: charsBefore, TokensBefore: tokensBefore,
		CharsAfter: 24 + 23 + 30, TokensAfter: 6 + 6 + 8}
	if got.Figures != want {
		t.Errorf("figures %+v, want %+v", got.Figures, want)
	}
	if charsBefore != 273 {
		t.Errorf("the conversation has %d chars, the test expects 273", charsBefore)
	}
	if got.Summary != "" {
		t.Errorf("summary %q without include_summary", got.Summary)
	}
	if !slices.EqualFunc(in, orig, func(a, b memory.Turn) bool { return a.Seq == b.Seq && a.Content == b.Content }) {
		t.Error("the input was changed")
	}
}

func TestFilterSummaryOfDropped(t *testing.T) {
	f := seedFilter()
	f.IncludeSummary = true
	got := FilterTurns(conversation(), f, 6000, now)
	if !slices.Equal(seqs(got.Turns), []int64{7, 8, 9}) {
		t.Fatalf("kept %v", seqs(got.Turns))
	}
	// Dropped of the asked roles: 1, 2 (too old), 3, 4 (beyond the last 3);
	// never the tool turn or the notification.
	want := "4 earlier turns not shown; the first sentence of the latest of them:\n" +
		"- user: Old question about logging.\n- assistant: Old answer about logging.\n" +
		"- user: Implement user_auth in src/auth/user.rs.\n- assistant: I will ask the coder."
	if got.Summary != want {
		t.Errorf("summary\n%s\nwant\n%s", got.Summary, want)
	}
	if got.Figures.Summarized != 4 || got.Figures.CharsAfter != 77+len(want) || got.Figures.TokensAfter != 20+llm.EstimateTokens(want) {
		t.Errorf("figures %+v", got.Figures)
	}
}

func TestFilterRolesAndKeywords(t *testing.T) {
	f := ContextFilter{LastMessages: -1, Roles: []string{"user", "tool", RoleNotification}, Keywords: []string{"TASKID", "coder"}}
	got := FilterTurns(conversation(), f, DefaultMaxContextTokens, now)
	// user turns naming neither keyword are dropped; the tool turn has
	// "taskId", the notification "Coder" (case-insensitive).
	if !slices.Equal(seqs(got.Turns), []int64{5, 6}) {
		t.Errorf("kept %v, want the tool turn and the notification", seqs(got.Turns))
	}
	// Default roles: notifications and tool turns are left out.
	f = ContextFilter{LastMessages: -1, Roles: DefaultRoles}
	if got := FilterTurns(conversation(), f, DefaultMaxContextTokens, now); !slices.Equal(seqs(got.Turns), []int64{1, 2, 3, 4, 7, 8, 9}) {
		t.Errorf("default roles kept %v", seqs(got.Turns))
	}
}

func TestFilterDefaultTokenBudget(t *testing.T) {
	var turns []memory.Turn
	for i := range 6 {
		turns = append(turns, memory.Turn{Seq: int64(i + 1), Role: "user", Content: strings.Repeat("x", 4000), Time: now})
	}
	f := ContextFilter{LastMessages: -1, Roles: DefaultRoles}
	// 1000 tokens each: the 4000-token default keeps the newest 4.
	got := FilterTurns(turns, f, DefaultMaxContextTokens, now)
	if !slices.Equal(seqs(got.Turns), []int64{3, 4, 5, 6}) || got.Figures.TokensAfter != 4000 || got.Figures.TokensBefore != 6000 {
		t.Errorf("kept %v, figures %+v", seqs(got.Turns), got.Figures)
	}
	// One byte more each (1001 tokens): only 3 fit.
	for i := range turns {
		turns[i].Content += "y"
	}
	if got := FilterTurns(turns, f, DefaultMaxContextTokens, now); !slices.Equal(seqs(got.Turns), []int64{4, 5, 6}) || got.Figures.TokensAfter != 3003 {
		t.Errorf("kept %v, figures %+v", seqs(got.Turns), got.Figures)
	}
}

func TestFilterCharBudgetKeepsNewestContiguous(t *testing.T) {
	turns := []memory.Turn{
		{Seq: 1, Role: "user", Content: "short", Time: now},
		{Seq: 2, Role: "user", Content: strings.Repeat("long ", 20), Time: now},
		{Seq: 3, Role: "assistant", Content: "newest one", Time: now},
	}
	f := ContextFilter{LastMessages: -1, Roles: DefaultRoles, MaxChars: 50}
	got := FilterTurns(turns, f, DefaultMaxContextTokens, now)
	// Turn 2 (100 chars) does not fit, so turn 1 is not taken over it: no gap.
	if !slices.Equal(seqs(got.Turns), []int64{3}) || got.Figures.CharsAfter != 10 {
		t.Errorf("kept %v, figures %+v", seqs(got.Turns), got.Figures)
	}
	// A newest turn over the budget: nothing is kept.
	if got := FilterTurns(turns[:2], f, DefaultMaxContextTokens, now); len(got.Turns) != 0 || got.Figures.TurnsAfter != 0 || got.Figures.CharsAfter != 0 {
		t.Errorf("kept %v, figures %+v", seqs(got.Turns), got.Figures)
	}
	// Runes, not bytes: 10 'é' are 10 characters.
	uni := []memory.Turn{{Seq: 1, Role: "user", Content: strings.Repeat("é", 10), Time: now}}
	if got := FilterTurns(uni, ContextFilter{LastMessages: -1, Roles: DefaultRoles, MaxChars: 10}, 100, now); got.Figures.CharsAfter != 10 {
		t.Errorf("figures %+v", got.Figures)
	}
}

func TestFilterEdgeCases(t *testing.T) {
	if got := FilterTurns(nil, seedFilter(), 6000, now); len(got.Turns) != 0 || got.Figures != (Figures{}) || got.Summary != "" {
		t.Errorf("empty conversation: %+v", got)
	}
	// A turn without a time is of unknown age: max_age drops it.
	untimed := []memory.Turn{{Seq: 1, Role: "user", Content: "when?"}}
	if got := FilterTurns(untimed, seedFilter(), 6000, now); len(got.Turns) != 0 {
		t.Errorf("untimed turn kept under max_age")
	}
	if got := FilterTurns(untimed, ContextFilter{LastMessages: 3, Roles: DefaultRoles}, 6000, now); len(got.Turns) != 1 {
		t.Errorf("untimed turn dropped without max_age")
	}
	// Exactly max_age old is too old (the seed keeps created_at > cutoff).
	edge := []memory.Turn{{Seq: 1, Role: "user", Content: "edge", Time: now.Add(-600 * time.Second)}}
	if got := FilterTurns(edge, seedFilter(), 6000, now); len(got.Turns) != 0 {
		t.Errorf("a turn exactly max_age old was kept")
	}
	// The summary takes at most a quarter of the budget, and the whole stays within it.
	var many []memory.Turn
	for i := range 50 {
		many = append(many, memory.Turn{Seq: int64(i + 1), Role: "user", Content: strings.Repeat("word ", 30) + ". More.", Time: now})
	}
	f := ContextFilter{LastMessages: 2, Roles: DefaultRoles, IncludeSummary: true}
	got := FilterTurns(many, f, 400, now)
	if st := llm.EstimateTokens(got.Summary); st > 100 || st == 0 {
		t.Errorf("summary of %d tokens, want 1..100", st)
	}
	if got.Figures.TokensAfter > 400 || got.Figures.Summarized != 48 || len(got.Turns) != 2 {
		t.Errorf("figures %+v, kept %d", got.Figures, len(got.Turns))
	}
	// A budget too small for any summary line: no summary at all.
	if got := FilterTurns(many, f, 10, now); got.Summary != "" || got.Figures.Summarized != 0 {
		t.Errorf("tiny budget: summary %q", got.Summary)
	}
}

func TestFirstSentence(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  One. Two.", 20, "One."},
		{"first line\nsecond.", 20, "first line"},
		{"see a.b.c now. Next", 20, "see a.b.c now."},
		{"no   end  at all", 20, "no end at all"},
		{"aaaaaaaaa", 5, "aaaa…"},
	} {
		if got := firstSentence(c.in, c.n); got != c.want {
			t.Errorf("firstSentence(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
