// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/node"
)

// newConfigCmd groups the configuration commands.
func newConfigCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Inspect the configuration",
		Example: "  a2abus config check",
		Args:    cobra.NoArgs,
	}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and print what applies, each key with its source, secrets hidden",
		Long: "Resolves the configuration (flags > A2ABUS_* environment > file > defaults), validates it and\n" +
			"prints the calls the policy allows (policy.*), then the values that apply to a short command such as\n" +
			"invoke, as YAML with passwords replaced by\n" +
			"xxxxx, each key followed by its source: default, file, env (its variable) or flag. An unset bus.url\n" +
			"or redis.url is printed as the server used instead (the local one; --embedded: the embedded one),\n" +
			"and the log level and format as short commands log (serve, directory, mcp and the agents keep the\n" +
			"configured ones, by default " + config.DefaultLogLevel + " and " + config.DefaultLogFormat + "). A bad configuration exits 1, naming every bad\n" +
			"key: unknown keys and bad values together. --json prints {\"valid\":…,\"allowed\":[…],\"settings\":[{\"key\",\"value\",\"source\"}…]}\n" +
			"or {\"valid\":false,\"errors\":[{\"key\",\"reason\"}…]}.",
		Example: "  a2abus config check\n  A2ABUS_BUS_URL=amqps://u:p@rabbit:5671/ a2abus config check --config prod.yaml\n  a2abus config check --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := cliutil.LoadConfig(cmd, c.configFile)
			if err != nil {
				if asJSON {
					return reportConfigErrors(c.stdout, err)
				}
				return err
			}
			defer func() { _ = l.Log.Sync() }() // best effort: stderr may not support fsync
			return checkConfig(cmd.Context(), &env{Loaded: l, Out: c.stdout, Err: c.stderr}, asJSON)
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print JSON: the settings with their sources, or the errors")
	cmd.AddCommand(check)
	return cmd
}

// configReport is what config check --json prints.
type configReport struct {
	Valid    bool     `json:"valid"`
	File     string   `json:"file"`
	Warnings []string `json:"warnings"`
	// Allowed says which calls the policy (policy.*) allows, a line per rule.
	Allowed  []string         `json:"allowed,omitempty"`
	Settings []configSetting  `json:"settings,omitempty"`
	Errors   []configKeyError `json:"errors,omitempty"`
}

// configSetting is a config.Setting with what its source leaves unsaid.
type configSetting struct {
	config.Setting
	// Note says what a default means where the command completes it (the
	// local server for an unset bus.url, the level of short commands).
	Note string `json:"note,omitempty"`
}

// configKeyError is one error of a configuration; Key is "" for an error
// of the whole file (it does not parse, it is missing).
type configKeyError struct {
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason"`
}

// checkConfig prints the configuration that applies: as a configuration
// file that loads back (secrets printed as xxxxx must be set again), each
// key commented with its source, or with asJSON as a configReport.
func checkConfig(_ context.Context, e *env, asJSON bool) error {
	settings, err := e.Config.Redacted().Settings(e.Sources)
	if err != nil {
		return err
	}
	rep := configReport{Valid: true, File: e.File, Warnings: e.Config.Warnings(), Allowed: node.Policy(e.Config).Allowed()}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	for _, s := range settings {
		rep.Settings = append(rep.Settings, configSetting{Setting: s, Note: effectiveNote(e.Loaded, s)})
	}
	if asJSON {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	src := e.File
	if src == "" {
		src = "none (defaults, environment and flags)"
	}
	if _, err := fmt.Fprintf(e.Out, "# a2abus configuration: valid\n# file: %s\n"+
		"# the values that apply to short commands (invoke, agents, …), each with its source\n"+
		"# secrets are shown as xxxxx: set them again before loading this output\n", src); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	for _, w := range rep.Warnings { // comments: the output still loads
		if _, err := fmt.Fprintf(e.Out, "# warning: %s\n", w); err != nil {
			return fmt.Errorf("print configuration: %w", err)
		}
	}
	if _, err := fmt.Fprintf(e.Out, "# allowed calls (policy.*; a refusal names the key that would allow it):\n"); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	for _, a := range rep.Allowed {
		if _, err := fmt.Fprintf(e.Out, "#   %s\n", a); err != nil {
			return fmt.Errorf("print configuration: %w", err)
		}
	}
	var doc yaml.Node
	if err := doc.Encode(e.Config.Redacted()); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	comments := map[string]string{}
	for _, s := range rep.Settings {
		comments[s.Key] = sourceComment(s)
	}
	commentLeaves(&doc, "", comments)
	enc := yaml.NewEncoder(e.Out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("print configuration: %w", err)
	}
	return nil
}

// sourceComment is the comment after a key: its source, the variable or
// flag that set it, and the note on what its default means.
func sourceComment(s configSetting) string {
	c := string(s.Source)
	switch s.Source {
	case config.SourceEnv:
		c += " " + config.EnvName(s.Key)
	case config.SourceFlag:
		c += " --" + config.FlagName(s.Key)
	}
	if s.Note != "" {
		c += ": " + s.Note
	}
	return c
}

// effectiveNote says what the command did with a key left to its default:
// the server an unset URL means, the logging of short commands.
func effectiveNote(l *cliutil.Loaded, s config.Setting) string {
	if s.Source != config.SourceDefault {
		return ""
	}
	switch s.Key {
	case "bus.url":
		return originNote(l.Origins.Bus, "bus")
	case "redis.url":
		if len(l.Config.Redis.Addrs) > 0 {
			return ""
		}
		return originNote(l.Origins.Memory, "memory")
	case "log.level":
		return "short commands; serve, directory, mcp and the agents: " + config.DefaultLogLevel
	case "log.format":
		return "short commands; serve, directory, mcp and the agents: " + config.DefaultLogFormat
	}
	return ""
}

// originNote names the server an unset URL stands for.
func originNote(o cliutil.Origin, what string) string {
	switch o {
	case cliutil.LocalDefault:
		return "unset, so the local server (demo and --" + cliutil.EmbeddedFlag + ": the embedded " + what + ")"
	case cliutil.Embedded:
		return "unset, so the embedded in-process " + what + " (--" + cliutil.EmbeddedFlag + ")"
	}
	return ""
}

// commentLeaves sets the line comment of every mapping entry of n whose
// dotted key is in comments.
func commentLeaves(n *yaml.Node, prefix string, comments map[string]string) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			commentLeaves(c, prefix, comments)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + key
		}
		if c, ok := comments[key]; ok {
			if v.Kind == yaml.ScalarNode || len(v.Content) == 0 { // a scalar, or [] on one line
				v.LineComment = c
			} else {
				k.LineComment = c
			}
			continue
		}
		commentLeaves(v, key, comments)
	}
}

// reportConfigErrors prints err, a configuration that did not load, as a
// configReport on w, each *config.FieldError with its key, and returns an
// error that exits 1 without another JSON object.
func reportConfigErrors(w io.Writer, err error) error {
	rep := configReport{File: "", Warnings: []string{}}
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		if fe, ok := errors.AsType[*config.FieldError](err); ok {
			rep.Errors = append(rep.Errors, configKeyError{Key: fe.Key, Reason: fe.Reason})
			return
		}
		rep.Errors = append(rep.Errors, configKeyError{Reason: err.Error()})
	}
	walk(err)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if perr := enc.Encode(rep); perr != nil {
		return errors.Join(err, fmt.Errorf("print configuration errors: %w", perr))
	}
	return &cliutil.ExitError{Code: cliutil.ExitFailure, Err: err, Reported: true}
}
