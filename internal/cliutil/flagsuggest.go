// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2abus/a2abus/internal/text"
)

// maxFlagEdits bounds the edits between a mistyped flag and one suggested.
const maxFlagEdits = 2

// suggestFlag adds to err, an unknown --flag of cmd, the flags of cmd
// nearest to it (by edit distance, or that it starts) as cobra does for an
// unknown command: "unknown flag: --jsn (did you mean --json?)". Any other
// error is returned as it is.
func suggestFlag(cmd *cobra.Command, err error) error {
	ne, ok := errors.AsType[*pflag.NotExistError](err)
	if !ok || cmd == nil || !strings.HasPrefix(err.Error(), "unknown flag: --") {
		return err
	}
	typed := ne.GetSpecifiedName()
	var names, prefixed []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		names = append(names, f.Name)
		if len(typed) > 1 && strings.HasPrefix(f.Name, typed) {
			prefixed = append(prefixed, f.Name)
		}
	})
	near := text.Nearest(typed, names, 3, maxFlagEdits)
	for _, p := range prefixed {
		if len(near) < 3 && !slices.Contains(near, p) {
			near = append(near, p)
		}
	}
	if len(near) == 0 {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, strings.Join(near, " or --"))
}
