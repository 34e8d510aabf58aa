// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/memory"
)

// withMemory opens the configured working memory for body and closes it after.
func withMemory(ctx context.Context, e *env, body func(memory.Memory) error) error {
	m, err := e.OpenMemory(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	if e.Config.Redis.Embedded() {
		fmt.Fprintln(e.Err, "a2abus: note: working memory is the embedded in-process store (empty); set redis.url (--redis-url) to read Redis")
	}
	return body(m)
}

// newMemoryCmd builds `a2abus memory get KEY` and `a2abus memory list PREFIX`.
func newMemoryCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "memory", Short: "Read working memory", Args: cobra.NoArgs,
		Example: "  a2abus memory list session/s1/\n  a2abus memory get session/s1/a2a/SampleAgent/TASK"}
	cmd.AddCommand(&cobra.Command{
		Use:   "get KEY",
		Short: "Print the value stored under KEY (JSON pretty-printed)",
		Example: "  a2abus memory get session/s1/a2a/SampleAgent/0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f\n" +
			"  a2abus memory get \"$(a2abus invoke SampleAgent echo hi --wait --json | jq -r .memoryKey)\"",
		Args: cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			return withMemory(ctx, e, func(m memory.Memory) error {
				v, err := m.Get(ctx, args[0])
				if errors.Is(err, memory.ErrNotFound) {
					return fmt.Errorf("memory get %q: not found or expired", args[0])
				}
				if err != nil {
					return err
				}
				var pretty bytes.Buffer
				if json.Indent(&pretty, v, "", "  ") == nil {
					v = pretty.Bytes()
				}
				_, err = fmt.Fprintf(e.Out, "%s\n", cliutil.Printable(string(bytes.TrimRight(v, "\n"))))
				return err
			})
		}),
	})
	var asJSON bool
	list := &cobra.Command{
		Use:     "list PREFIX",
		Short:   "List the keys starting with PREFIX, with their remaining TTL",
		Example: "  a2abus memory list session/s1/\n  a2abus memory list session/ --json",
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			return withMemory(ctx, e, func(m memory.Memory) error {
				keys, err := m.List(ctx, args[0])
				if err != nil {
					return err
				}
				type entry struct {
					Key string `json:"key"`
					TTL string `json:"ttl"`
				}
				entries := make([]entry, 0, len(keys))
				for _, k := range keys {
					ttl, err := m.TTL(ctx, k)
					if errors.Is(err, memory.ErrNotFound) {
						continue // expired since the listing
					}
					if err != nil {
						return err
					}
					s := "none"
					if ttl > 0 {
						s = ttl.Round(1e9).String()
					}
					entries = append(entries, entry{Key: k, TTL: s})
				}
				if asJSON {
					return json.NewEncoder(e.Out).Encode(entries)
				}
				var b strings.Builder
				for _, en := range entries {
					fmt.Fprintf(&b, "%s\t(ttl %s)\n", cliutil.PrintableLine(en.Key), en.TTL)
				}
				_, err = fmt.Fprint(e.Out, b.String())
				return err
			})
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}

// newConversationCmd builds `a2abus conversation show SESSION`.
func newConversationCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "conversation", Short: "Read session conversations", Args: cobra.NoArgs,
		Example: "  a2abus conversation show s1"}
	var asJSON bool
	show := &cobra.Command{
		Use:     "show SESSION",
		Short:   "Print the turns of a session's conversation, notifications included",
		Example: "  a2abus conversation show s1\n  a2abus conversation show s1 --json | jq -r '.[].content'",
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			if err := memory.ValidateSessionID(args[0]); err != nil {
				return err
			}
			return withMemory(ctx, e, func(m memory.Memory) error {
				turns, err := m.Turns(ctx, args[0], 0, 0)
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(e.Out).Encode(turns)
				}
				if len(turns) == 0 {
					_, err := fmt.Fprintf(e.Out, "session %s has no turns\n", args[0])
					return err
				}
				var b strings.Builder
				for _, t := range turns {
					fmt.Fprintf(&b, "#%d %s [%s] %s\n", t.Seq, t.Time.Format("2006-01-02T15:04:05.000Z07:00"), t.Role, t.Content)
				}
				_, err = fmt.Fprint(e.Out, cliutil.Printable(b.String()))
				return err
			})
		}),
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(show)
	return cmd
}
