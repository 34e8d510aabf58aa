// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// errNoStreams says the working memory cannot read streams.
var errNoStreams = errors.New("audit: this working memory does not read streams")

// newAuditCmd builds `a2abus audit`: the latest audit records of every
// session, from the export stream.
func newAuditCmd(c *cli) *cobra.Command {
	var asJSON bool
	var count int
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Print the latest audit records of every session, from the audit stream",
		Long: "Print the latest audit records of all sessions, oldest first, from the Redis stream the callers\n" +
			"export them to (audit.export stream or stdout+stream; <redis.key_prefix>kv:audit/stream), with the\n" +
			"task and output previews. One session's records, kept for audit.retention whatever the export: a2abus history.",
		Example: "  a2abus audit\n  a2abus audit --count 1000 --json | jq -c 'select(.status != \"SUCCESS\")'",
		Args:    cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			if count < 1 || count > 100_000 {
				return fmt.Errorf("--count must be within 1..100000, got %d", count)
			}
			return withMemory(ctx, e, func(m memory.Memory) error {
				r, ok := m.(memory.StreamReader)
				if !ok {
					return errNoStreams
				}
				vals, err := r.StreamTail(ctx, memory.AuditStreamKey, count)
				if err != nil {
					return err
				}
				if len(vals) == 0 && !e.Config.Audit.ExportsStream() {
					fmt.Fprintf(e.Err, "a2abus: note: audit.export is %q: the callers export nothing to the stream (set it to stream or stdout+stream)\n", e.Config.Audit.Export)
				}
				if asJSON {
					for _, v := range vals {
						if _, err := fmt.Fprintf(e.Out, "%s\n", v); err != nil {
							return err
						}
					}
					return nil
				}
				return printAudit(e.Out, vals)
			})
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as they are stored, one JSON line each")
	cmd.Flags().IntVar(&count, "count", 50, "how many of the latest records to print")
	return cmd
}

// printAudit writes the records vals to w as an aligned table, the
// previews under each call.
func printAudit(w io.Writer, vals [][]byte) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tSESSION\tCALL\tSTATUS\tCODE\tDURATION")
	for _, v := range vals {
		var en caller.HistoryEntry
		if err := json.Unmarshal(v, &en); err != nil {
			fmt.Fprintf(tw, "-\t-\t(unreadable record: %s)\t\t\t\n", cliutil.PrintableLine(err.Error()))
			continue
		}
		code := string(en.Code)
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s.%s\t%s\t%s\t%s\n", en.Time.Format("2006-01-02T15:04:05.000Z07:00"),
			cliutil.PrintableLine(en.SessionID), cliutil.PrintableLine(en.Caller), cliutil.PrintableLine(en.Target), cliutil.PrintableLine(en.Skill),
			cliutil.PrintableLine(en.Status), cliutil.PrintableLine(code), en.Duration().Round(time.Millisecond))
		printPreviews(tw, "\t\t", en)
	}
	return tw.Flush()
}
