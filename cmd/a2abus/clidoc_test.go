// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// updateDocs rewrites the generated part of docs/cli.md instead of comparing
// it: go test ./cmd/a2abus -run TestCLIReference -update (or make gen-docs).
var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md's command reference from the command tree")

// cliDocPath is the command reference, relative to this package.
const cliDocPath = "../../docs/cli.md"

// cliDocMarker ends the hand-written part of docs/cli.md; everything after it
// is rendered from the command tree by renderCLIReference.
const cliDocMarker = "<!-- Generated from the command tree by `make gen-docs`; edit the help texts in cmd/a2abus, not what follows. -->\n"

// documented lists the commands of the tree a reader can run: every command
// and subcommand, depth first in cobra's (alphabetical) order, without
// hidden ones and cobra's own help command.
func documented(cmd *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{cmd}
	for _, sub := range cmd.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		out = append(out, documented(sub)...)
	}
	return out
}

// anchor is GitHub's anchor of a heading made of a command path.
func anchor(path string) string { return strings.ReplaceAll(path, " ", "-") }

// ownFlags renders the flags cmd defines itself (the root's are the global
// flags every command takes), without --help.
func ownFlags(cmd *cobra.Command) string {
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			fs.AddFlag(f)
		}
	})
	return fs.FlagUsages()
}

// renderCLIReference renders the generated part of docs/cli.md: an index of
// every command, then each command's usage, description, examples and flags
// exactly as its --help gives them.
func renderCLIReference(root *cobra.Command) string {
	cmds := documented(root)
	var b strings.Builder
	b.WriteString("## Every command\n\n")
	for _, cmd := range cmds {
		fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", cmd.CommandPath(), anchor(cmd.CommandPath()), cmd.Short)
	}
	for _, cmd := range cmds {
		fmt.Fprintf(&b, "\n### %s\n\n%s.\n\n```text\n%s\n", cmd.CommandPath(), strings.TrimSuffix(cmd.Short, "."), cmd.UseLine())
		if cmd.Long != "" {
			fmt.Fprintf(&b, "\n%s\n", strings.TrimRight(cmd.Long, "\n"))
		}
		if cmd.Example != "" {
			fmt.Fprintf(&b, "\nExamples:\n%s\n", strings.TrimRight(cmd.Example, "\n"))
		}
		if f := ownFlags(cmd); f != "" {
			title := "Flags"
			if cmd == root {
				title = "Global flags (every command takes them)"
			}
			fmt.Fprintf(&b, "\n%s:\n%s", title, f)
		}
		b.WriteString("```\n")
	}
	return b.String()
}

// TestCLIReferenceIsTheCommandTree: docs/cli.md documents every command and
// subcommand of the tree with its current help, and nothing else. With
// -update it rewrites the generated part instead.
func TestCLIReferenceIsTheCommandTree(t *testing.T) {
	doc, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(doc), cliDocMarker)
	if !ok {
		t.Fatalf("%s lacks the line that starts its generated part:\n%s", cliDocPath, cliDocMarker)
	}
	want := head + cliDocMarker + "\n" + renderCLIReference(newRootCmd(io.Discard, io.Discard))
	if *updateDocs {
		if err := os.WriteFile(cliDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(doc) != want {
		t.Errorf("%s is not the command tree's help (a command or its help changed): run `make gen-docs` and commit the result\n%s",
			cliDocPath, firstDifference(string(doc), want))
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  file:      %q\n  generated: %q", i+1, gl, wl)
		}
	}
	return ""
}

// jargon matches words that mean something only inside the project's own
// history: its work items ("#15", "seed 004", "wave 2"), and the faults of
// the system it replaces by number ("RockBot fault 9").
var jargon = regexp.MustCompile(`(?i)\bseed 0\d\d\b|\brockbot\b|\bfault \d+\b|\bwave \d+\b|(^|[^A-Za-z ]|[^S] )#\d+\b`)

// TestHelpSpeaksPlainly: no command's --help leans on the project's internal
// history (work item numbers, seeds, waves, another system's faults by number).
func TestHelpSpeaksPlainly(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	for _, cmd := range documented(root) {
		var out bytes.Buffer
		cmd.SetOut(&out)
		if err := cmd.Help(); err != nil {
			t.Fatalf("%s --help: %v", cmd.CommandPath(), err)
		}
		for i, line := range strings.Split(out.String(), "\n") {
			if m := jargon.FindString(line); m != "" {
				t.Errorf("%s --help, line %d, says %q, which means nothing to a user: %s", cmd.CommandPath(), i+1, m, line)
			}
		}
	}
}

// TestJargonPattern: the pattern catches the project's internal references
// and lets ordinary text through.
func TestJargonPattern(t *testing.T) {
	for _, s := range []string{"before the fixes of #15", "(#26)", "the flow of seed 003", "RockBot fault 9", "see wave 2", "fault 12"} {
		if !jargon.MatchString(s) {
			t.Errorf("jargon does not catch %q", s)
		}
	}
	for _, s := range []string{"PEM PKCS #8", "the default seed 42", "a wave of tasks", "channel#1x", "no fault here"} {
		if jargon.MatchString(s) {
			t.Errorf("jargon catches %q, which is plain", s)
		}
	}
}
