// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Build is what a release stamps into a binary (scripts/release.sh, make
// build): -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234
// -X main.date=2026-11-26T18:03:00Z". A plain go build leaves the mains'
// defaults (dev, dev, unknown).
type Build struct {
	Version, Commit, Date string
}

// String is "<version> (commit <commit>, built <date>, <go version>,
// <os>/<arch>)".
func (b Build) String() string {
	return fmt.Sprintf("%s (commit %s, built %s, %s, %s/%s)",
		b.Version, b.Commit, b.Date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Fill returns b with what the linker left at the mains' defaults (dev,
// dev, unknown) taken from info, the build information of the binary: the
// module version `go install …/cmd/a2abus@v1.2.3` records, and the commit
// and commit time of a go build in a git checkout. A nil info changes
// nothing.
func (b Build) Fill(info *debug.BuildInfo) Build {
	if info == nil {
		return b
	}
	if b.Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && b.Commit == "dev" && len(s.Value) >= 12:
			b.Commit = s.Value[:12]
		case s.Key == "vcs.time" && b.Date == "unknown" && s.Value != "":
			b.Date = s.Value
		}
	}
	return b
}

// AddVersion gives root, the root command of a binary, a `version` command
// and a --version flag, both printing "<binary> version <Build>" (cobra's
// own form: a version template would link text/template, whose reflective
// method calls keep every exported method of every linked type, 7.5 MB of
// an agent's binary). Neither needs a
// configuration, so they work even when the configuration is bad. What was
// not stamped is filled from the binary's build information (Fill).
func AddVersion(root *cobra.Command, b Build) {
	info, _ := debug.ReadBuildInfo() // nil without build information: b as stamped
	b = b.Fill(info)
	root.Version = b.String()
	root.AddCommand(&cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit, build date and Go version",
		Example: "  " + root.Name() + " version\n  " + root.Name() + " --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s version %s\n", root.Name(), b)
			return err
		},
	})
}
