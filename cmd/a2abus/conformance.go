// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/conformance"
)

// exitNonConformant is the exit code of a conformance run with a failed MUST requirement.
const exitNonConformant = 2

// newConformanceCmd builds `a2abus conformance --agent NAME`.
func newConformanceCmd(c *cli) *cobra.Command {
	var o conformance.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "conformance --agent NAME",
		Example: "  a2abus conformance --agent SampleAgent\n  a2abus conformance --agent PyAgent --skill echo --input '{}' --json",
		Short:   "Drive a running agent (any language) through the wire protocol and report pass/fail per requirement",
		Long: "Sends the running agent NAME requests, cancels, malformed and exhausted deliveries over RabbitMQ\n" +
			"(bus.url, bus.exchange) and checks what it answers against docs/wire-protocol.md; docs/conformance.md\n" +
			"lists the requirements. Prints a table (or --json). Exit 0 when every MUST requirement passed,\n" +
			"2 when one failed, 1 when the kit could not run (bad flags or configuration, no broker).",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			if e.Config.Bus.Embedded() {
				return errors.New("conformance: bus.url is not set: the kit drives an agent on RabbitMQ (--amqp-url)")
			}
			o.URL, o.Exchange, o.QueueType = e.Config.Bus.URL, e.Config.Bus.Exchange, e.Config.Bus.QueueType
			if o.MaxAttempts == 0 {
				o.MaxAttempts = e.Config.Bus.MaxAttempts
			}
			if s := e.Config.Directory.AnnounceSecret; s != "" {
				o.Secret = []byte(s)
			}
			o.Notify = func(line string) { fmt.Fprintln(e.Err, cliutil.Printable(line)) }
			rep, err := conformance.Run(ctx, o)
			if err != nil {
				return err
			}
			if asJSON {
				err = rep.WriteJSON(e.Out)
			} else {
				var table strings.Builder // details quote the agent under test
				if err = rep.WriteTable(&table); err == nil {
					_, err = io.WriteString(e.Out, cliutil.Printable(table.String()))
				}
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return &cliutil.ExitError{Code: exitNonConformant, Err: fmt.Errorf("agent %q does not conform", o.Agent)}
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Agent, "agent", "", "the agent under test (its exact name)")
	fl.StringVar(&o.Caller, "caller", "", "the caller name the kit uses (default Conformance<random>)")
	fl.StringVar(&o.Skill, "skill", "echo", "an echo-like skill for the round trips")
	fl.StringVar(&o.Input, "input", "conformance ping", "the text sent to --skill")
	fl.StringVar(&o.Expect, "expect", "", "text the result must contain (default: --input; \"-\" checks nothing)")
	fl.StringVar(&o.ErrorSkill, "error-skill", "fail", "a skill that answers a task.error (skipped when the card lacks it)")
	fl.StringVar(&o.ErrorInput, "error-input", "conformance failure", "the text sent to --error-skill")
	fl.StringVar(&o.SlowSkill, "slow-skill", "sleep", "a skill that runs until canceled, for the cancel check (skipped when the card lacks it)")
	fl.StringVar(&o.SlowInput, "slow-input", "30000", "the text sent to --slow-skill")
	fl.StringVar(&o.AskSkill, "ask-skill", "clarify", "a skill that asks its caller a question, for the checks of later turns (skipped when the card lacks it or it does not ask: asking is optional)")
	fl.StringVar(&o.AskInput, "ask-input", "conformance", "the text sent to --ask-skill")
	fl.StringVar(&o.AskAnswer, "ask-answer", "", "the answer sent to its question (default: the question's first option's id, else \"yes\")")
	fl.IntVar(&o.MaxAttempts, "max-attempts", 0, "the agent's attempt limit (default bus.max_attempts)")
	fl.DurationVar(&o.Timeout, "timeout", 15*time.Second, "how long each check waits for an answer")
	fl.DurationVar(&o.AwaitStop, "await-stop", 0, "at the end, wait this long for the agent to be stopped and check its deregistration (0: skip)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("agent")
	return cmd
}
