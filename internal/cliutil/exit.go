// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// The exit codes of the a2abus binaries, the one place they are decided
// (ExitCode) and documented (docs/cli.md, "Exit codes").
const (
	// ExitOK: the command did what it was asked (a task completed).
	ExitOK = 0
	// ExitFailure: bad usage or configuration, a server that cannot be
	// reached, or any other failure of the command itself.
	ExitFailure = 1
	// ExitTaskFailed: the task waited for failed, timed out or was canceled
	// (its outcome, with its error code, was printed).
	ExitTaskFailed = 2
	// ExitRefused: the call was refused before anything was published
	// (AGENT_NOT_FOUND, SKILL_NOT_SUPPORTED, INVALID_INPUT, a guard
	// refusal: FORBIDDEN, RATE_LIMITED, BUSY, CIRCUIT_OPEN, CYCLE_DETECTED,
	// DEPTH_EXCEEDED, …): no task exists.
	ExitRefused = 3
	// ExitInputRequired: the task waited for asks its caller a question
	// (input-required or auth-required): it is not over; the question was
	// printed, and `a2abus reply TASK ANSWER` answers it.
	ExitInputRequired = 4
)

// Codes of the JSON error object for failures that carry no a2a error code.
const (
	CodeUsage         = "USAGE"          // bad arguments or flags
	CodeInvalidConfig = "INVALID_CONFIG" // a bad configuration key
	CodeUnreachable   = "UNREACHABLE"    // a server could not be reached (UnreachableError)
	CodeError         = "ERROR"          // any other failure
)

// ExitError makes Execute exit with Code instead of 1; Err is printed as
// any error. Reported says the command already printed its outcome on
// standard output, so --json gets no error object after it.
type ExitError struct {
	Code     int
	Err      error
	Reported bool
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// TaskFailed makes the command exit with ExitTaskFailed, printing err; the
// outcome was printed (Reported).
func TaskFailed(err error) error {
	return &ExitError{Code: ExitTaskFailed, Err: err, Reported: true}
}

// InputRequired makes the command exit with ExitInputRequired, printing
// err; the question was printed (Reported).
func InputRequired(err error) error {
	return &ExitError{Code: ExitInputRequired, Err: err, Reported: true}
}

// Refused makes the command exit with ExitRefused when err carries an a2a
// error code (a caller refuses a call before publishing it with one); any
// other error is returned as it is. Give it only errors of a call that was
// not published (Invoke, Call before its publish).
func Refused(err error) error {
	if err == nil || a2a.CodeOf(err) == "" {
		return err
	}
	return &ExitError{Code: ExitRefused, Err: err}
}

// UsageError is a bad argument or flag (cobra's own checks included).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode is the exit code of a command that returned err.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if ee, ok := errors.AsType[*ExitError](err); ok {
		return ee.Code
	}
	return ExitFailure
}

// ErrorCode is the code of the JSON error object for err: its a2a error
// code, else CodeUsage, CodeInvalidConfig, CodeUnreachable or CodeError.
func ErrorCode(err error) string {
	if c := a2a.CodeOf(err); c != "" {
		return string(c)
	}
	if _, ok := errors.AsType[*UsageError](err); ok {
		return CodeUsage
	}
	if _, ok := errors.AsType[*UnreachableError](err); ok {
		return CodeUnreachable
	}
	if errors.Is(err, config.ErrInvalid) {
		return CodeInvalidConfig
	}
	return CodeError
}

// errorObject is what --json prints on standard output for a failure.
type errorObject struct {
	Error struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		ExitCode int    `json:"exitCode"`
	} `json:"error"`
}

// Execute runs root with args under a context cancelled by the first SIGINT
// or SIGTERM (a second one kills the process), prints a failure to stderr as
// "<root name>: <error>" — one line per line of its message (printError) — and, when
// the command was given --json, as {"error":{"code":…,"message":…,"exitCode":…}}
// on its standard output too (unless it printed its outcome there already).
// It returns ExitCode: 0, an *ExitError's Code, or 1.
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore the default handling: a second signal ends the process at once
	}()
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetErr(stderr)
	root.SetArgs(args)
	markUsageErrors(root)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitCode(err)
	ee, isExit := errors.AsType[*ExitError](err)
	if isExit {
		err = ee.Err
	}
	printError(stderr, root.Name(), err)
	if (!isExit || !ee.Reported) && wantsJSON(cmd, args) {
		var obj errorObject
		obj.Error.Code, obj.Error.Message, obj.Error.ExitCode = ErrorCode(err), err.Error(), code
		out := root.OutOrStdout()
		if cmd != nil {
			out = cmd.OutOrStdout()
		}
		_ = json.NewEncoder(out).Encode(obj)
	}
	return code
}

// printError writes err to w as "<name>: <line>", one line per line of its
// message (a joined error has one per error, e.g. per bad configuration
// key), control characters made visible (Printable): an error may quote
// what an agent or a model said. The message is the error's own, never the
// parts it unwraps to: those may be a sentinel and a nil cause.
func printError(w io.Writer, name string, err error) {
	for line := range strings.SplitSeq(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(w, "%s: %s\n", name, Printable(line))
	}
}

// wantsJSON reports whether cmd was given --json: its parsed flag, or the
// raw arguments when parsing stopped before it.
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Changed {
			return f.Value.String() == "true"
		}
	}
	return slices.Contains(args, "--json") || slices.Contains(args, "--json=true")
}

// markUsageErrors makes cobra's argument and flag errors *UsageError (an
// unknown flag naming the nearest ones, suggestFlag), in
// the whole tree under root, and a group command (one that only holds
// subcommands) given an unknown subcommand an error instead of its help.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &UsageError{Err: suggestFlag(cmd, err)} })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.Runnable() && c.HasSubCommands() && c != root {
			c.Args = cobra.NoArgs // "unknown command X for a2abus memory"
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					if _, done := errors.AsType[*UsageError](err); !done {
						return &UsageError{Err: err}
					}
					return err
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
