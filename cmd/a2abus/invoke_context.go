// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2abus/a2abus/pkg/caller"
)

// callerContextFlags are invoke's flags of the caller's context per call:
// the part of the session's conversation sent with the task, and what the
// agent may use for it. The agent's own configuration stays the ceiling.
type callerContextFlags struct {
	last             int
	roles            []string
	maxAge           time.Duration
	maxContextTokens int
	allowedTools     []string
	allowNested      bool
	noNested         bool // the older spelling of --allow-nested-calls=false

	contextSet, toolsSet, nestedSet bool // filled by read from what was given
}

// addCallerContextFlags registers the flags on cmd.
func addCallerContextFlags(cmd *cobra.Command, f *callerContextFlags) {
	fl := cmd.Flags()
	fl.IntVar(&f.last, "context-last", 0, "send the newest N messages of the session's conversation (--session) with the task (0: all that fit --max-context-tokens)")
	fl.StringSliceVar(&f.roles, "context-roles", nil, "send only messages of these roles: user, assistant, system, tool, notification (default user,assistant)")
	fl.DurationVar(&f.maxAge, "context-max-age", 0, "send only messages at most this old (e.g. 10m)")
	fl.IntVar(&f.maxContextTokens, "max-context-tokens", 0, "token budget of what is sent (default 4000) and cap of the agent's own model context for this task")
	fl.StringSliceVar(&f.allowedTools, "allowed-tools", nil, "the only tools the agent may use for this task, of its own (\"\" for none; default: its own)")
	fl.BoolVar(&f.allowNested, "allow-nested-calls", true, "let the agent call other agents for this task (=false: they are refused with FORBIDDEN)")
	fl.BoolVar(&f.noNested, "no-nested-calls", false, "same as --allow-nested-calls=false")
	_ = fl.MarkHidden("no-nested-calls")
	_ = cmd.RegisterFlagCompletionFunc("context-roles", cobra.FixedCompletions(caller.ContextRoles, cobra.ShellCompDirectiveNoFileComp))
}

// read notes which of the flags were given.
func (f *callerContextFlags) read(fl *pflag.FlagSet) {
	f.contextSet = fl.Changed("context-last") || fl.Changed("context-roles") || fl.Changed("context-max-age")
	f.toolsSet = fl.Changed("allowed-tools")
	f.nestedSet = fl.Changed("allow-nested-calls")
}

// apply sets them on req, refusing what cannot be sent.
func (f *callerContextFlags) apply(req *caller.Request) error {
	if f.noNested && f.allowNested && f.nestedSet {
		return errors.New("--no-nested-calls and --allow-nested-calls contradict each other: give one")
	}
	if f.noNested || !f.allowNested {
		req.AllowNestedCalls = new(false)
	}
	switch {
	case f.last < 0:
		return fmt.Errorf("--context-last: want 0 or more messages, got %d", f.last)
	case f.maxAge < 0:
		return fmt.Errorf("--context-max-age: want a positive duration such as 10m, got %s", f.maxAge)
	case f.maxContextTokens < 0:
		return fmt.Errorf("--max-context-tokens: want a positive number, got %d", f.maxContextTokens)
	case f.contextSet && req.SessionID == "":
		return errors.New("--context-last, --context-roles and --context-max-age send part of a session's conversation: name the session with --session")
	}
	if f.contextSet {
		req.CallerContext = &caller.ContextFilter{LastMessages: f.last, Roles: f.roles, MaxAge: f.maxAge}
	}
	req.MaxContextTokens = f.maxContextTokens
	if f.toolsSet {
		req.AllowedTools = append([]string{}, f.allowedTools...)
	}
	return nil
}
