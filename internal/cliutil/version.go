// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// NewVersionCmd builds the `version` command of binary, built with
// -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234": it prints
// "<binary> <version> (commit <commit>, <go version>, <os>/<arch>)". It needs
// no configuration, so it works even when the configuration is bad.
func NewVersionCmd(binary, version, commit string) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version",
		Example: "  " + binary + " version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s %s (commit %s, %s, %s/%s)\n",
				binary, version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
