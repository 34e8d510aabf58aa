// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// conversation is what the route skill reads of a task's turns: the
// original request, the user's clarifications, this turn's answer, and the
// report of the question it answers. Everything comes from the task's
// request and history, so any replica can go on.
type conversation struct {
	// request is the text of the task's first message.
	request string
	// clarifications are the user's answers that said more about the
	// request (not those that picked an option), oldest first; the Router
	// notes this turn's answer once it knows the question it answers.
	clarifications []string
	// answer is this turn's text ("" on the first turn).
	answer string
	// last is the report of the question this turn answers (nil on the
	// first turn, or when the history does not carry it).
	last *Report
}

// readConversation reads t's turns (this turn's answer not yet noted).
func readConversation(t *agent.Task) conversation {
	hist := t.History()
	if t.Turn() == 0 || len(hist) == 0 {
		return conversation{request: strings.TrimSpace(t.Text())}
	}
	c := conversation{request: strings.TrimSpace(a2a.MessageText(hist[0])), answer: strings.TrimSpace(t.Text())}
	var asked *Report
	for _, m := range hist[1:] {
		switch {
		case m == nil:
		case m.Role == a2a.MessageRoleAgent:
			asked, _ = reportIn(m.Parts) // nil: not a question of this skill
		case m.Role == a2a.MessageRoleUser:
			c.note(asked, strings.TrimSpace(a2a.MessageText(m)))
		}
	}
	c.last = asked
	return c
}

// note records answer, given to the question of report asked, as a
// clarification unless it picked one of the question's options or
// answered a relayed question.
func (c *conversation) note(asked *Report, answer string) {
	if answer == "" || (asked != nil && asked.Relayed) {
		return
	}
	if asked != nil && asked.Decision == DecisionChoose {
		if _, picked := pickOption(asked.Options, answer); picked {
			return
		}
	}
	c.clarifications = append(c.clarifications, answer)
}

// query is the text to classify: the request and the clarifications.
func (c *conversation) query() string {
	return strings.Join(append([]string{c.request}, c.clarifications...), "\n")
}

// routedText is the text sent to the agent the request is routed to: the
// request, and what the user said about it when asked.
func (c *conversation) routedText() string {
	if len(c.clarifications) == 0 {
		return c.request
	}
	return c.request + "\n\nThe user added, when asked: " + strings.Join(c.clarifications, "\n")
}

// ordinals name the options by position.
var ordinals = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}

// pickOption returns the option answer picks: its id ("2", "option 2",
// "#2"), its position ("the second"), its capability, intent or
// agent/capability, or — when exactly one option's capability, intent or
// agent (one only that option has) is named in the answer — that option.
func pickOption(opts []Option, answer string) (Option, bool) {
	if len(opts) == 0 {
		return Option{}, false
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	a = strings.TrimRight(a, ".!? ")
	for _, p := range []string{"option ", "number ", "#", "the "} {
		a = strings.TrimPrefix(a, p)
	}
	a = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(a, " one"), " option"))
	if n, ok := ordinals[a]; ok {
		if n < 0 {
			n = len(opts)
		}
		if n <= len(opts) {
			return opts[n-1], true
		}
	}
	if n, err := strconv.Atoi(a); err == nil && n >= 1 && n <= len(opts) && opts[n-1].ID == strconv.Itoa(n) {
		return opts[n-1], true
	}
	agents := map[string]int{}
	for _, o := range opts {
		agents[strings.ToLower(o.Agent)]++
	}
	keys := func(o Option) []string {
		k := []string{strings.ToLower(o.ID), strings.ToLower(o.Capability), strings.ToLower(o.Intent),
			strings.ReplaceAll(strings.ToLower(o.Intent), "_", " "), strings.ToLower(o.Agent + "/" + o.Capability), strings.ToLower(o.Agent + "." + o.Capability)}
		if agents[strings.ToLower(o.Agent)] == 1 {
			k = append(k, strings.ToLower(o.Agent))
		}
		return k
	}
	for _, o := range opts {
		for _, k := range keys(o) {
			if k != "" && a == k {
				return o, true
			}
		}
	}
	found, n := Option{}, 0
	for _, o := range opts {
		for _, k := range keys(o)[1:] { // not the bare id: "1" is too easily a part of a sentence
			if k != "" && containsWord(a, k) {
				found, n = o, n+1
				break
			}
		}
	}
	return found, n == 1
}

// containsWord reports whether phrase occurs in s between non-word
// characters (or the ends).
func containsWord(s, phrase string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		prev, _ := utf8.DecodeLastRuneInString(s[:start])
		next, _ := utf8.DecodeRuneInString(s[end:])
		before := start == 0 || !isWordRune(prev)
		after := end == len(s) || !isWordRune(next)
		if before && after {
			return true
		}
		i = start + 1
	}
}
