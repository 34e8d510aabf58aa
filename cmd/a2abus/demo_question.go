// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// askAndFollowUp shows a task that talks back (docs/tasks.md): SampleAgent's
// confirm asks a question, answered as an LLM answers it (invoke_agent with
// task_id and option), then a follow-up task in the same context, whose
// agent sees the first (its question quotes it), answered as `a2abus reply`
// answers (caller.Continue). Steps n and n+1.
func (d *demo) askAndFollowUp(ctx context.Context, c *caller.Caller, n int, session string) error {
	const what = "book the meeting room for Friday"
	d.printf("%d. invoke_agent(SampleAgent, confirm, %q, wait) — the agent asks a question; the task waits for input\n", n, what)
	args, _ := json.Marshal(map[string]any{"agent_name": "SampleAgent", "skill": sample.SkillConfirm, "message": what, "wait": true})
	asked, err := d.invokeTool(ctx, args)
	if err != nil {
		return fmt.Errorf("demo step %d: %w", n, err)
	}
	d.printf("   task    %s -> %s (turn %d, context %s)\n", asked.TaskID, asked.State, asked.Turn, asked.ContextID)
	d.showQuestion(asked.Question)
	if err := d.showNotifications(ctx, session, asked.TaskID, 0); err != nil {
		return err
	}
	args, _ = json.Marshal(map[string]any{"task_id": asked.TaskID, "option": sample.OptionYes.ID, "wait": true})
	d.printf("   answer  invoke_agent(task_id %s, option %q, wait)\n", asked.TaskID, sample.OptionYes.ID)
	done, err := d.invokeTool(ctx, args)
	if err != nil {
		return fmt.Errorf("demo step %d: answer: %w", n, err)
	}
	d.printf("   task    %s -> %s (turn %d): %s\n", done.TaskID, done.State, done.Turn, done.Result)
	if err := d.showNotifications(ctx, session, asked.TaskID, 1); err != nil {
		return err
	}

	const next = "send the agenda to the team"
	d.printf("\n%d. invoke SampleAgent.confirm %q in the same context (--context %s) — a follow-up: the agent gets the context's history\n", n+1, next, asked.ContextID)
	out, err := c.Call(ctx, caller.Request{Target: "SampleAgent", Skill: sample.SkillConfirm, Text: next, SessionID: session, ContextID: asked.ContextID, Timeout: 30 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("demo step %d: %w", n+1, err)
	}
	d.printf("   task    %s -> %s (context %s)\n", out.TaskID, stateOf(out.Result), out.ContextID)
	d.showQuestion(&tools.Question{Text: out.Question().Text, Options: out.Question().Options})
	d.printf("   answer  a2abus reply %s no\n", out.TaskID)
	final, err := c.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "no", Timeout: 30 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("demo step %d: answer: %w", n+1, err)
	}
	d.printf("   task    %s -> %s (turn %d): %s\n\n", final.TaskID, stateOf(final.Result), final.Turn, final.Result.Text())
	return nil
}

// invokeTool calls invoke_agent with args, as a model would.
func (d *demo) invokeTool(ctx context.Context, args json.RawMessage) (tools.InvokeResult, error) {
	var r tools.InvokeResult
	raw, err := d.tools.Dispatch(ctx, "invoke_agent", args)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(raw, &r)
}

// showQuestion prints a question and its options.
func (d *demo) showQuestion(q *tools.Question) {
	if q == nil {
		d.printf("   asks    (no question)\n")
		return
	}
	d.printf("   asks    %s\n", q.Text)
	var opts []string
	for _, o := range q.Options {
		opts = append(opts, fmt.Sprintf("%s (%s)", o.ID, o.Label))
	}
	if len(opts) > 0 {
		d.printf("   options %s\n", strings.Join(opts, ", "))
	}
}

// showNotifications prints the notification turns of turn n of taskID.
func (d *demo) showNotifications(ctx context.Context, session, taskID string, turn int) error {
	turns, err := d.mem.Turns(ctx, session, 0, 0)
	if err != nil {
		return err
	}
	for _, t := range turns {
		if memory.MetaValue(t.Meta, caller.MetaTaskID) == taskID && t.Meta[caller.MetaTurn] == fmt.Sprint(turn) {
			d.printf("   notify  %s\n", t.Content)
		}
	}
	return nil
}

// stateOf is a result's state as the tools name it: input_required, completed, …
func stateOf(r *caller.StoredResult) string {
	return strings.ToLower(strings.TrimPrefix(string(r.State), "TASK_STATE_"))
}
