// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// The options of the confirm skill's question.
var (
	OptionYes = a2a.Option{ID: "yes", Label: "Yes", Description: "go ahead"}
	OptionNo  = a2a.Option{ID: "no", Label: "No", Description: "do not"}
)

// maxQuoted bounds, in characters, a text the confirm skill quotes.
const maxQuoted = 200

// confirm asks its caller to confirm the request's text (a question with
// the options yes and no: the task waits for input) and, on the answer,
// completes saying whether it was confirmed; any other answer is asked
// again. A task in a context that has earlier tasks quotes the latest
// message of that context in its question: the agent got the context's
// history with the request (Task.ContextHistory).
func confirm(_ context.Context, t *agent.Task) (*agent.Result, error) {
	if t.Turn() == 0 {
		what := strings.TrimSpace(t.Text())
		if what == "" {
			return nil, a2a.NewError(a2a.CodeInvalidInput, "confirm: the text must say what to confirm, e.g. \"book the meeting room for Friday\"")
		}
		q := fmt.Sprintf("Confirm: %s?", truncate(what, maxQuoted))
		if earlier := t.ContextHistory(); len(earlier) > 0 {
			q += fmt.Sprintf(" (earlier in this context, %d message(s), the latest: %q)", len(earlier),
				truncate(strings.Join(strings.Fields(a2a.MessageText(earlier[len(earlier)-1])), " "), maxQuoted))
		}
		return agent.Ask(q, OptionYes, OptionNo), nil
	}
	what := "(the request)"
	if h := t.History(); len(h) > 0 {
		what = truncate(strings.TrimSpace(a2a.MessageText(h[0])), maxQuoted)
	}
	switch answer := strings.ToLower(strings.Trim(strings.TrimSpace(t.Text()), ".!")); answer {
	case "yes", "y", "ok", "confirm", "confirmed", "sure":
		return certain("Confirmed: " + what), nil
	case "no", "n", "cancel", "do not", "don't":
		return certain("Not confirmed: " + what), nil
	default:
		return agent.Ask(fmt.Sprintf("Please answer yes or no (got %q): confirm %s?", truncate(answer, 64), what), OptionYes, OptionNo), nil
	}
}
