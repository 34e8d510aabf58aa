// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command licenses lists, for every module the binaries link (on linux and
// darwin, amd64 and arm64), its version and the licenses read from its
// license files in the module cache, then checks them against the allowed
// ones (`make licenses`). With -text it prints every module's license and
// NOTICE files in full instead, the third-party notices a binary
// distribution carries. The packages are ./cmd/... unless others are given.
// Exit code 1 when a module's license is unknown or not allowed, 2 when the
// modules could not be listed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/a2abus/a2abus/internal/licenses"
)

func main() {
	text := flag.Bool("text", false, "print the license and NOTICE files of every module in full")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: licenses [-text] [packages]  (default ./cmd/...)")
		flag.PrintDefaults()
	}
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./cmd/..."}
	}
	mods, err := licenses.Linked(context.Background(), ".", nil, licenses.Platforms, patterns...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "licenses:", err)
		os.Exit(2)
	}
	if *text {
		err = printTexts(os.Stdout, mods)
	} else {
		err = printList(os.Stdout, mods)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "licenses:", err)
		os.Exit(2)
	}
	if err := licenses.Check(mods); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// printList prints one line a module: path, version, licenses, files, then
// the count of each license and the notes of the licenses that have one.
func printList(w io.Writer, mods []licenses.Module) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "MODULE\tVERSION\tLICENSE\tFILES")
	count := map[string]int{}
	var notes []string
	for _, m := range mods {
		version := m.Version
		if m.Main {
			version = "(this module)"
		}
		license := strings.Join(m.Licenses, " AND ")
		if license == "" {
			license = "UNKNOWN"
		}
		for _, id := range m.Licenses {
			count[id]++
		}
		for _, n := range licenses.Notes(m) {
			notes = append(notes, m.Path+" "+n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Path, version, license, strings.Join(append(m.Files, m.Notices...), " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var total []string
	for _, id := range slices.Sorted(maps.Keys(count)) {
		total = append(total, fmt.Sprintf("%s %d", id, count[id]))
	}
	fmt.Fprintf(w, "\n%d modules: %s\n", len(mods), strings.Join(total, ", "))
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// printTexts prints every module's license and notice files, each under a
// heading naming the module and the file.
func printTexts(w io.Writer, mods []licenses.Module) error {
	for _, m := range mods {
		if m.Main {
			continue
		}
		for _, name := range append(m.Files, m.Notices...) {
			body, err := os.ReadFile(filepath.Join(m.Dir, name))
			if err != nil {
				return fmt.Errorf("module %s: %w", m.Path, err)
			}
			fmt.Fprintf(w, "================ %s %s: %s\n\n%s\n\n", m.Path, m.Version, name, strings.TrimSpace(string(body)))
		}
	}
	return nil
}
