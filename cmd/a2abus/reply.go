// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// replyFlags are the flags of an answer: `a2abus reply`, and `invoke --task`.
type replyFlags struct {
	input, option, callerName, messageID string
	timeout                              time.Duration
	wait, asJSON                         bool
}

// replyLong is what reply (and invoke --task) does, and its exit codes.
const replyLong = "Answers the question of task TASK, which waits for input (invoke --wait and wait exit 4 and print it):\n" +
	"the answer is sent to the same task, whose agent goes on with it in a new turn, on any of its instances.\n" +
	"ANSWER is the text; --option ID picks one of the options the question offers (ANSWER may then be left out);\n" +
	"--input JSON gives a structured answer (the question's inputSchema says its shape). Prints the task id and\n" +
	"the turn the answer started; with --wait it waits for that turn's end and prints it like invoke --wait:\n" +
	"exit 0 when the task completed, 2 when it failed or timed out, 4 when the agent asks again. An answer that\n" +
	"cannot be applied is refused with its code and nothing is sent, exit 3: TASK_FINISHED (the task ended),\n" +
	"INVALID_STATE (it waits for no answer: its turn runs, or another answer came first), FORBIDDEN (another\n" +
	"caller's task), INVALID_INPUT (the question's options or input schema refuse it). A task this caller has no\n" +
	"record of (another --caller?) exits 1. The same answer sent again with the same --message-id is applied once."

// newReplyCmd builds `a2abus reply TASK [ANSWER]`.
func newReplyCmd(c *cli) *cobra.Command {
	var f replyFlags
	cmd := &cobra.Command{
		Use:   "reply TASK [ANSWER]",
		Short: "Answer the question of a task that waits for input; its agent goes on with it",
		Long:  replyLong,
		Example: "  a2abus invoke SampleAgent confirm 'book the meeting room for Friday' --wait   # exit 4: it asks\n" +
			"  a2abus reply 0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f yes --wait\n" +
			"  a2abus reply TASK --option 2\n" +
			"  a2abus reply TASK 'three' --input '{\"n\":3}' --json",
		Args: cobra.RangeArgs(1, 2),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			if err := refuseBlankAnswer(args[1:], f); err != nil {
				return err
			}
			return runReply(ctx, e, f, args[0], strings.Join(args[1:], " "))
		}),
	}
	addReplyFlags(cmd, &f)
	cmd.Flags().BoolVar(&f.wait, "wait", false, "wait for the end of the turn the answer starts, showing status updates on stderr")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&f.input, "input", "", "a structured answer as JSON")
	cmd.Flags().StringVar(&f.callerName, "caller", "", "the caller name the task was invoked with (default caller.name)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "time the agent has for the turn the answer starts (default caller.default_timeout)")
	return cmd
}

// refuseBlankAnswer refuses an ANSWER given blank with nothing else to
// answer with (exit 3, INVALID_INPUT naming it): nothing is sent. No
// ANSWER at all is a usage error (runReply).
func refuseBlankAnswer(answer []string, f replyFlags) error {
	if len(answer) == 1 && strings.TrimSpace(answer[0]) == "" && f.option == "" && f.input == "" {
		return blankArgument("reply", "ANSWER (the argument after TASK)", "give the answer's text, --option ID or --input JSON")
	}
	return nil
}

// blankArgument refuses a call whose argument arg is empty or blank before
// anything is published: exit 3, with INVALID_INPUT naming it and what to
// give instead.
func blankArgument(command, arg, instead string) error {
	return cliutil.Refused(a2a.NewError(a2a.CodeInvalidInput, "%s: %s is empty: %s", command, arg, instead))
}

// addReplyFlags adds the flags only an answer has to cmd.
func addReplyFlags(cmd *cobra.Command, f *replyFlags) {
	cmd.Flags().StringVar(&f.option, "option", "", "pick the option of this id among those the question offers")
	cmd.Flags().StringVar(&f.messageID, "message-id", "", "the answer's id: the same answer sent again with the same id is applied once (default: a new one)")
}

// runReply answers task taskID with text and the flags.
func runReply(ctx context.Context, e *env, f replyFlags, taskID, text string) error {
	r := caller.Reply{TaskID: taskID, Text: text, Option: f.option, MessageID: f.messageID, Timeout: f.timeout}
	if f.input != "" {
		if !json.Valid([]byte(f.input)) {
			return fmt.Errorf("--input: not valid JSON: %q", f.input)
		}
		r.Input = json.RawMessage(f.input)
	}
	if strings.TrimSpace(text) == "" && f.option == "" && f.input == "" {
		return &cliutil.UsageError{Err: errors.New("nothing to answer: give ANSWER, --option ID or --input JSON")}
	}
	if f.callerName != "" {
		e.Config.Caller.Name = f.callerName
	}
	oc, err := openCaller(ctx, e, noVetting)
	if err != nil {
		return err
	}
	defer oc.closeAll()
	explain := func(err error) error {
		if errors.Is(err, caller.ErrUnknownTask) {
			return fmt.Errorf("%w (caller %q has no record of it: was it invoked with another --caller, or did it end long ago?)", err, oc.cl.Name())
		}
		return cliutil.Refused(err) // each refusal comes before the answer is published
	}
	if !f.wait {
		inv, err := oc.cl.Reply(ctx, r)
		if err != nil {
			return explain(err)
		}
		return printAnswered(e.Out, inv, f.asJSON)
	}
	if err := oc.run(); err != nil {
		return err
	}
	return awaitOutcome(e, f.asJSON, "task "+taskID, func(p *progress) (*caller.Outcome, error) {
		out, err := oc.cl.Continue(ctx, r, p.print)
		if err != nil {
			return nil, explain(err)
		}
		return out, nil
	})
}

// printAnswered prints the Invocation of the turn an answer started.
func printAnswered(w io.Writer, inv caller.Invocation, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{
			"taskId": inv.TaskID, "memoryKey": inv.MemoryKey, "sessionId": inv.SessionID, "contextId": inv.ContextID,
			"agent": inv.Target, "turn": inv.Turn, "deadline": inv.Deadline, "status": "answered",
		})
	}
	_, err := fmt.Fprintf(w, "answered:   task %s, turn %d (due %s)\nmemory_key: %s\nwait:       a2abus wait %s\n",
		inv.TaskID, inv.Turn, inv.Deadline.UTC().Format(time.RFC3339), inv.MemoryKey, inv.TaskID)
	return err
}

// printQuestion writes, for a person, the question a task waits on: the
// agent and the question, its options, the shape of a structured answer,
// what to authenticate with, until when, and how to answer.
func printQuestion(b *strings.Builder, out *caller.Outcome) {
	r := out.Result
	q := r.Question
	if q == nil {
		q = &a2a.Question{Text: r.Text()}
	}
	verb := "asks"
	if r.State == a2a.TaskStateAuthRequired {
		verb = "needs authentication"
	}
	fmt.Fprintf(b, "%s %s (task %s, turn %d): %s\n", r.Agent, verb, out.TaskID, out.Turn, q.Text)
	if n := q.Auth; n != nil {
		fmt.Fprintf(b, "  authenticate with: %s", n.Scheme)
		if n.Resource != "" {
			fmt.Fprintf(b, " for %s", n.Resource)
		}
		if len(n.Scopes) > 0 {
			fmt.Fprintf(b, " (scopes: %s)", strings.Join(n.Scopes, ", "))
		}
		if n.URL != "" {
			fmt.Fprintf(b, " at %s", n.URL)
		}
		b.WriteString("\n")
	}
	if len(q.Options) > 0 {
		b.WriteString("  options:\n")
		for _, o := range q.Options {
			fmt.Fprintf(b, "    %-8s %s", o.ID, o.Label)
			if o.Description != "" {
				fmt.Fprintf(b, " — %s", o.Description)
			}
			b.WriteString("\n")
		}
	}
	if len(q.InputSchema) > 0 {
		fmt.Fprintf(b, "  a structured answer (--input) of this JSON Schema: %s\n", q.InputSchema)
	}
	how := "a2abus reply " + out.TaskID + " ANSWER"
	if len(q.Options) > 0 {
		how += "   (or --option ID)"
	}
	fmt.Fprintf(b, "  answer by %s: %s\n", r.AnswerBy.UTC().Format(time.RFC3339), how)
}
