// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// newHistoryCmd builds `a2abus history SESSION`: the session's call history,
// one line per call (refusals included), oldest first.
func newHistoryCmd(c *cli) *cobra.Command {
	var asJSON, previews bool
	cmd := &cobra.Command{
		Use:   "history SESSION",
		Short: "Print the calls made in a session: time, caller → target.skill, task, status, code, duration",
		Long: "Print the call history of a session from working memory: every call made in it, by any caller,\n" +
			"with its outcome (SUCCESS, PARTIAL, ERROR, TIMEOUT, or REFUSED before it was sent), oldest first.\n" +
			"Each entry is the call's audit record, kept for audit.retention (7 days by default) however long\n" +
			"the result itself is kept (memory.result_ttl); its error message and its previews of the task and\n" +
			"the output (audit.preview_chars) are stored redacted. --previews prints them under each call.",
		Example: "  a2abus history s1\n  a2abus history s1 --previews\n  a2abus history s1 --json | jq -r '.[] | select(.status != \"SUCCESS\") | .code'",
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			if err := memory.ValidateSessionID(args[0]); err != nil {
				return err
			}
			return withMemory(ctx, e, func(m memory.Memory) error {
				entries, err := caller.History(ctx, m, args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(e.Out).Encode(entries)
				}
				if len(entries) == 0 {
					_, err := fmt.Fprintf(e.Out, "session %s has no call history\n", args[0])
					return err
				}
				return printHistory(e.Out, entries, previews)
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&previews, "previews", false, "print the task and output previews under each call")
	return cmd
}

// printHistory writes entries to w as an aligned table; previews adds the
// task's and the output's preview (or the error) under each call.
func printHistory(w io.Writer, entries []caller.HistoryEntry, previews bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tCALL\tTASK\tSTATUS\tCODE\tDURATION")
	for _, en := range entries {
		status := en.Status
		if en.Late {
			status += " (late)"
		}
		code := string(en.Code)
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(tw, "%s\t%s → %s.%s\t%s\t%s\t%s\t%s\n", en.CreatedAt.Format("2006-01-02T15:04:05.000Z07:00"),
			cliutil.PrintableLine(en.Caller), cliutil.PrintableLine(en.Target), cliutil.PrintableLine(en.Skill), cliutil.PrintableLine(en.TaskID),
			cliutil.PrintableLine(status), cliutil.PrintableLine(code),
			en.Duration().Round(time.Millisecond))
		if previews {
			printPreviews(tw, "\t", en)
		}
	}
	return tw.Flush()
}

// printPreviews writes the task preview of a history record, and its output
// preview or error, each on a line of its own after indent (the columns
// the record's line leaves empty).
func printPreviews(w io.Writer, indent string, en caller.HistoryEntry) {
	if en.Task != "" {
		fmt.Fprintf(w, "%s  task: %s\n", indent, cliutil.PrintableLine(en.Task))
	}
	switch {
	case en.Output != "":
		fmt.Fprintf(w, "%s  output: %s\n", indent, cliutil.PrintableLine(en.Output))
	case en.Error != "":
		fmt.Fprintf(w, "%s  error: %s\n", indent, cliutil.PrintableLine(en.Error))
	}
}
