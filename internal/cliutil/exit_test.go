// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestExitCodes(t *testing.T) {
	refusal := fmt.Errorf("invoke X.y: %w", a2a.NewError(a2a.CodeAgentNotFound, "agent %q is not in the directory", "X"))
	for _, tc := range []struct {
		name string
		err  error
		code int
		json string
	}{
		{"ok", nil, ExitOK, ""},
		{"any failure", errors.New("boom"), ExitFailure, CodeError},
		{"bad configuration", fmt.Errorf("%w: log.level", config.ErrInvalid), ExitFailure, CodeInvalidConfig},
		{"usage", &UsageError{Err: errors.New("accepts 1 arg(s)")}, ExitFailure, CodeUsage},
		{"unreachable", &UnreachableError{Err: errors.New("refused")}, ExitFailure, CodeUnreachable},
		{"task failed", TaskFailed(a2a.NewError(a2a.CodeTimeout, "late")), ExitTaskFailed, "TIMEOUT"},
		{"refused before publishing", Refused(refusal), ExitRefused, "AGENT_NOT_FOUND"},
		{"the task asks a question", InputRequired(a2a.NewError(a2a.CodeInputRequired, "which?")), ExitInputRequired, "INPUT_REQUIRED"},
		{"Refused keeps an error without a code", Refused(errors.New("closed")), ExitFailure, CodeError},
	} {
		if got := ExitCode(tc.err); got != tc.code {
			t.Errorf("%s: ExitCode = %d, want %d", tc.name, got, tc.code)
		}
		if tc.err != nil && ErrorCode(tc.err) != tc.json {
			t.Errorf("%s: ErrorCode = %q, want %q", tc.name, ErrorCode(tc.err), tc.json)
		}
	}
	if Refused(nil) != nil {
		t.Error("Refused(nil) != nil")
	}
}

// jsonTool is a command with --json whose body returns err after printing
// printed on stdout.
func jsonTool(err error, printed string) *cobra.Command {
	root := &cobra.Command{Use: "tool"}
	var asJSON bool
	sub := &cobra.Command{Use: "do ARG", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, _ []string) error {
		fmt.Fprint(cmd.OutOrStdout(), printed)
		return err
	}}
	sub.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	root.AddCommand(sub)
	return root
}

// TestJSONFailuresPrintAnErrorObject: with --json a failure is an error
// object on stdout as well as a line on stderr — scripts never get empty
// output — except when the command printed its outcome already.
func TestJSONFailuresPrintAnErrorObject(t *testing.T) {
	refusal := Refused(a2a.NewError(a2a.CodeSkillNotSupported, "no skill z"))
	for _, tc := range []struct {
		name        string
		err         error
		args        []string
		code        int
		errCode     string
		wantNoError bool
	}{
		{"refusal", refusal, []string{"do", "x", "--json"}, ExitRefused, "SKILL_NOT_SUPPORTED", false},
		{"usage, flags not parsed", nil, []string{"do", "--json", "--nope"}, ExitFailure, CodeUsage, false},
		{"usage, arguments", nil, []string{"do", "--json"}, ExitFailure, CodeUsage, false},
		{"outcome printed", TaskFailed(errors.New("EXECUTION_FAILED: x")), []string{"do", "x", "--json"}, ExitTaskFailed, "", true},
		{"no --json", refusal, []string{"do", "x"}, ExitRefused, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := jsonTool(tc.err, "")
			var stdout, stderr bytes.Buffer
			root.SetOut(&stdout)
			code := Execute(root, tc.args, &stderr)
			if code != tc.code || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "tool: ") {
				t.Fatalf("exit %d, stderr %q; want %d and one line", code, stderr.String(), tc.code)
			}
			if tc.wantNoError {
				if stdout.Len() != 0 {
					t.Fatalf("stdout %q, want nothing", stdout.String())
				}
				return
			}
			var obj struct {
				Error struct {
					Code     string `json:"code"`
					Message  string `json:"message"`
					ExitCode int    `json:"exitCode"`
				} `json:"error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil || obj.Error.Code != tc.errCode || obj.Error.ExitCode != code ||
				"tool: "+obj.Error.Message+"\n" != stderr.String() {
				t.Fatalf("stdout %q (%v); want code %s, exit %d and stderr's message", stdout.String(), err, tc.errCode, code)
			}
		})
	}
}

// TestGroupCommandsRefuseUnknownSubcommands: `tool group bogus` is an
// error, not the group's help with exit 0; `tool group` still shows the help.
func TestGroupCommandsRefuseUnknownSubcommands(t *testing.T) {
	root := &cobra.Command{Use: "tool"}
	group := &cobra.Command{Use: "group", Short: "a group"}
	group.AddCommand(&cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(group)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	if code := Execute(root, []string{"group", "bogus"}, &stderr); code != ExitFailure ||
		stderr.String() != "tool: unknown command \"bogus\" for \"tool group\"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := Execute(root, []string{"group"}, &stderr); code != ExitOK || !strings.Contains(stdout.String(), "Available Commands") {
		t.Fatalf("help: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
