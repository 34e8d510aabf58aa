// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// ErrNilAgent is returned by Register when it is given no agent.
var ErrNilAgent = errors.New("sample: nil agent")

// MaxSleep bounds the sleep skill's duration.
const MaxSleep = 24 * time.Hour

// progressEvery is how often the sleep skill publishes its progress.
const progressEvery = time.Second

// Register registers SampleAgent's skills on a. c makes the calls of the
// delegate skill; with a nil c, delegate fails with EXECUTION_FAILED.
func Register(a *agent.Agent, c *caller.Caller) error {
	if a == nil {
		return ErrNilAgent
	}
	d := &delegator{self: a.Name(), caller: c}
	skills := []struct {
		id   string
		h    agent.Handler
		opts []agent.SkillOption
	}{
		{SkillEcho, echo, nil},
		{SkillSleep, sleep, nil},
		{SkillFail, fail, nil},
		{SkillNPV, npv, []agent.SkillOption{agent.WithSelfCheckedInputSchema(json.RawMessage(NPVInputSchema))}},
		{SkillDelegate, d.handle, nil},
		{SkillConfirm, confirm, nil},
	}
	for _, s := range skills {
		if err := a.Handle(s.id, s.h, s.opts...); err != nil {
			return fmt.Errorf("sample: register skill %q: %w", s.id, err)
		}
	}
	return nil
}

// certain is a text result of HIGH confidence: what SampleAgent's skills
// answer is exactly what they were asked (the text echoed, the time slept,
// the caller's own answer), nothing inferred.
func certain(text string) *agent.Result {
	res := agent.TextResult(text)
	res.Confidence = a2a.ConfidenceHigh
	return res
}

// echo returns the request text unchanged.
func echo(_ context.Context, t *agent.Task) (*agent.Result, error) {
	return certain(t.Text()), nil
}

// fail fails with the request text as the error message (EXECUTION_FAILED).
func fail(_ context.Context, t *agent.Task) (*agent.Result, error) {
	msg := t.Text()
	if strings.TrimSpace(msg) == "" {
		msg = "failed on request (no message given)"
	}
	return nil, errors.New(msg)
}

// sleep waits the number of milliseconds in the text, publishing progress
// about every second, and returns ctx's error as soon as the task is
// cancelled or its deadline passes (the runtime reports CANCELED or TIMEOUT).
func sleep(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	total, err := parseSleep(t.Text())
	if err != nil {
		return nil, err
	}
	start := time.Now()
	done := time.NewTimer(total)
	defer done.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-done.C:
			return certain(fmt.Sprintf("slept %s", total)), nil
		case <-tick.C:
			elapsed := time.Since(start)
			frac := min(float64(elapsed)/float64(total), 1)
			// Status is advisory: a lost update does not fail the task.
			_ = t.Progress(ctx, fmt.Sprintf("slept %s of %s", elapsed.Round(100*time.Millisecond), total), frac)
		}
	}
}

// parseSleep reads the sleep skill's text: a whole number of milliseconds
// within 0..MaxSleep. Anything else is INVALID_INPUT saying what was wrong.
func parseSleep(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, a2a.NewError(a2a.CodeInvalidInput, "sleep: the text must be a number of milliseconds such as \"5000\", got an empty text")
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil:
		return 0, a2a.NewError(a2a.CodeInvalidInput, "sleep: the text must be a whole number of milliseconds such as \"5000\", got %q", truncate(s, 64))
	case ms < 0:
		return 0, a2a.NewError(a2a.CodeInvalidInput, "sleep: milliseconds must not be negative, got %d", ms)
	case ms > MaxSleep.Milliseconds():
		return 0, a2a.NewError(a2a.CodeInvalidInput, "sleep: milliseconds must be at most %d (%s), got %d", MaxSleep.Milliseconds(), MaxSleep, ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// decodeInput decodes the task's structured input (structured) into v.
func decodeInput(t *agent.Task, v any) error { return structured(t).DecodeInput(v) }

// structured is t, or, for a request without structured input whose text is
// a JSON object, a copy of t whose input is that text, so that a caller that
// can only send text (an LLM's invoke_agent) can use a skill taking input.
func structured(t *agent.Task) *agent.Task {
	if text := strings.TrimSpace(t.Text()); len(t.Request.Input) == 0 && strings.HasPrefix(text, "{") {
		req := *t.Request
		req.Input = json.RawMessage(text)
		fromText := *t
		fromText.Request = &req
		return &fromText
	}
	return t
}

// truncate shortens s to at most n characters for an error message.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
