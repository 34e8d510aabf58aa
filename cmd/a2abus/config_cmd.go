package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// newConfigCmd groups the configuration commands.
func newConfigCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and print it as YAML, secrets hidden",
		Long: "Resolves the configuration (flags > A2ABUS_* environment > file > defaults),\n" +
			"validates it and prints it as YAML with passwords replaced by xxxxx.\n" +
			"A bad configuration exits non-zero, naming every bad key and value.",
		Args: cobra.NoArgs,
		RunE: c.withConfig(checkConfig),
	})
	return cmd
}

// checkConfig prints the resolved configuration; the output is itself a valid
// configuration file.
func checkConfig(_ context.Context, e *env, _ []string) error {
	src := e.File
	if src == "" {
		src = "none (defaults, environment and flags)"
	}
	if _, err := fmt.Fprintf(e.Out, "# a2abus configuration: valid\n# file: %s\n", src); err != nil {
		return fmt.Errorf("print configuration: %w", err)
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
