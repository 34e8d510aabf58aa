// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/node"
)

// Bounds of a dynamic completion: how long running agents get to announce
// themselves, and the whole completion (dialling included). A shell waits
// for it, so it is short: what is not known by then is not offered.
const (
	completionAnnounceWait = 700 * time.Millisecond
	completionBound        = 2 * time.Second
)

// addCompletion adds cobra's `completion` and `help` commands with their
// examples, and the completion of the configuration flags' values.
func addCompletion(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, cmd := range root.Commands() {
		switch cmd.Name() {
		case "help":
			cmd.Example = "  a2abus help invoke"
		case "completion":
			cmd.Example = "  source <(a2abus completion bash)\n" +
				"  a2abus completion zsh > \"${fpath[1]}/_a2abus\"\n" +
				"  a2abus completion fish > ~/.config/fish/completions/a2abus.fish"
			for _, sh := range cmd.Commands() {
				sh.Example = "  a2abus completion " + sh.Name() + " > a2abus-completion." + sh.Name()
			}
		}
	}
	_ = root.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions([]string{"debug", "info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"console", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
	})
}

// completeAgentSkill completes `AGENT SKILL` arguments: agent names, then
// the skills of the agent named, from the directory (well-known agents and
// those that announce themselves within completionAnnounceWait).
func (c *cli) completeAgentSkill(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return c.completeFromDirectory(cmd, func(en directory.Entry) []string {
			return []string{cliutil.PrintableLine(en.Name) + "\t" + firstLine(en.Card.Description)}
		}, toComplete)
	case 1:
		return c.completeFromDirectory(cmd, func(en directory.Entry) []string {
			if !strings.EqualFold(en.Name, args[0]) {
				return nil
			}
			var out []string
			for _, s := range en.Card.Skills {
				out = append(out, cliutil.PrintableLine(s.ID)+"\t"+firstLine(s.Description))
			}
			return out
		}, toComplete)
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// completeSkill completes a --skill flag with every skill the directory knows.
func (c *cli) completeSkill(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return c.completeFromDirectory(cmd, func(en directory.Entry) []string { return en.SkillIDs() }, toComplete)
}

// completeFromDirectory offers what pick returns for each directory entry,
// those starting with toComplete (case-insensitively), without duplicates.
// Any failure (bad configuration, unreachable bus) offers what is known:
// completion never prints an error.
func (c *cli) completeFromDirectory(cmd *cobra.Command, pick func(directory.Entry) []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), completionBound)
	defer cancel()
	var out []string
	for _, en := range c.directoryEntries(ctx, cmd) {
		for _, s := range pick(en) {
			name, _, _ := strings.Cut(s, "\t")
			if strings.HasPrefix(strings.ToLower(name), strings.ToLower(toComplete)) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// directoryEntries lists the agents a directory knows after
// completionAnnounceWait, within ctx; nothing when the configuration is bad
// or the bus cannot be reached in time.
func (c *cli) directoryEntries(ctx context.Context, cmd *cobra.Command) []directory.Entry {
	l, err := cliutil.LoadQuiet(cmd, c.configFile)
	if err != nil {
		return nil
	}
	n, err := l.OpenBusNode(ctx, "a2abus-completion")
	if err != nil {
		return wellKnownEntries(l)
	}
	defer func() { _ = n.Close() }()
	entries, err := listDirectory(ctx, n, completionAnnounceWait, directory.Filter{})
	if err != nil {
		return wellKnownEntries(l)
	}
	return entries
}

// wellKnownEntries is what a directory knows without the bus: the
// well-known agents.
func wellKnownEntries(l *cliutil.Loaded) []directory.Entry {
	known, err := node.WellKnown(l.Config, l.Log)
	if err != nil {
		return nil
	}
	out := make([]directory.Entry, 0, len(known))
	for _, k := range known {
		out = append(out, directory.Entry{Name: k.AgentName, Card: *k.Card(), WellKnown: true, Status: directory.StatusWellKnown})
	}
	return out
}

// firstLine is s up to its first line break, at most 80 characters, its
// control characters made visible: a completion's description, which the
// shell shows.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return cliutil.PrintableLine(truncate(s, 79))
}
