// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// newConfigCmd groups the configuration commands.
func newConfigCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Inspect the configuration",
		Example: "  a2abus config check",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(cliutil.SetProfile(&cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and print it as YAML, secrets hidden",
		Long: "Resolves the configuration (flags > A2ABUS_* environment > file > defaults),\n" +
			"validates it and prints it as YAML with passwords replaced by xxxxx.\n" +
			"A bad configuration exits non-zero, naming every bad key and value. Unset bus.url and redis.url are\n" +
			"printed unset: commands then use the local servers (demo, or --embedded: the embedded ones).",
		Example: "  a2abus config check\n  A2ABUS_BUS_URL=amqps://u:p@rabbit:5671/ a2abus config check --config prod.yaml",
		Args:    cobra.NoArgs,
		RunE:    c.withConfig(checkConfig),
	}, cliutil.AsConfigured))
	return cmd
}

// checkConfig prints the resolved configuration as a configuration file
// that loads back as it is when it holds no secret; a secret is printed as
// xxxxx, which must be set again (the file or its A2ABUS_* variable) first.
func checkConfig(_ context.Context, e *env, _ []string) error {
	src := e.File
	if src == "" {
		src = "none (defaults, environment and flags)"
	}
	if _, err := fmt.Fprintf(e.Out, "# a2abus configuration: valid\n# file: %s\n# secrets are shown as xxxxx: set them again before loading this output\n", src); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	for _, w := range e.Config.Warnings() { // comments: the output still loads
		if _, err := fmt.Fprintf(e.Out, "# warning: %s\n", w); err != nil {
			return fmt.Errorf("print configuration: %w", err)
		}
	}
	enc := yaml.NewEncoder(e.Out)
	enc.SetIndent(2)
	if err := enc.Encode(e.Config.Redacted()); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	return nil
}
