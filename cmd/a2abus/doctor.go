// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/doctor"
)

// errChecksFailed: a doctor check failed (the report says which).
var errChecksFailed = errors.New("doctor: checks failed")

// newDoctorCmd builds `a2abus doctor`: every check of internal/doctor in
// one run, one line each, exit 0 only when none failed.
func newDoctorCmd(c *cli) *cobra.Command {
	var (
		asJSON  bool
		timeout = doctor.DefaultCheckTimeout
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the broker, Redis, the well-known file, the model endpoint and the identity setup, explaining each finding",
		Long: "Checks in one run what a2abus needs, as the other commands would use it (the same configuration, the\n" +
			"local servers when bus.url / redis.url are unset): the broker (reachable, version, its consumer-timeout\n" +
			"against the longest deadline, that this user can declare, publish and consume), Redis (reachable,\n" +
			"version, an eviction policy that cannot drop results, persistence), the well-known file (parses, every\n" +
			"entry valid), the model endpoint when llm.base_url is set (GET /models), the URLs that apply and the\n" +
			"identity mode. Prints one line per check (✓ passed, ! warning, ✗ failed) and a summary; each check is\n" +
			"bounded by --check-timeout. Exit 0 when none failed (warnings allowed), 1 otherwise.",
		Example: "  a2abus doctor\n  a2abus doctor --amqp-url amqp://agent:secret@rabbit:5672/ --redis-url redis://cache:6379/0\n  a2abus doctor --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var rep doctor.Report
			l, err := cliutil.LoadConfig(cmd, c.configFile)
			if err != nil {
				rep = doctor.Report{Failed: 1, Checks: []doctor.Check{{Name: "configuration", Status: doctor.Fail, Detail: err.Error()}}}
			} else {
				defer func() { _ = l.Log.Sync() }() // best effort: stderr may not support fsync
				rep = doctor.Run(cmd.Context(), l, doctor.Options{CheckTimeout: timeout})
			}
			if asJSON {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return fmt.Errorf("print report: %w", err)
				}
			} else if err := rep.WriteText(c.stdout); err != nil {
				return err
			}
			if !rep.OK {
				return &cliutil.ExitError{Code: cliutil.ExitFailure, Err: fmt.Errorf("%w: %d of %d", errChecksFailed, rep.Failed, len(rep.Checks)), Reported: true}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print the report as JSON: {"ok","passed","warned","failed","checks":[{"name","status","detail"}]}`)
	cmd.Flags().DurationVar(&timeout, "check-timeout", timeout, "bound of each check that talks to a server")
	return cmd
}
