// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import "errors"

// Sentinel errors of the agent runtime.
var (
	// ErrClosed: the agent was closed.
	ErrClosed = errors.New("agent: closed")
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("agent: invalid options")
	// ErrDuplicateSkill: a handler is already registered for the skill.
	ErrDuplicateSkill = errors.New("agent: duplicate skill")
	// ErrStopTimeoutTooLong: Options.StopTimeout is not below
	// Options.MaxTaskDuration (it also wraps ErrInvalidOptions).
	ErrStopTimeoutTooLong = errors.New("agent: stop timeout not below the maximum task duration")
	// ErrRunning: Handle or Use was called after Run started, or Run twice.
	ErrRunning = errors.New("agent: already running")
)

// errShutdown is the cancel cause of handler contexts when the agent stops
// before they finish: their tasks are requeued, not failed.
var errShutdown = errors.New("agent: shutting down")

// errCanceledByCaller is the cancel cause set by a task.cancel message.
var errCanceledByCaller = errors.New("agent: task canceled by its caller")

// errUnencodable marks a reply the codec refused (too large, invalid):
// publishing it again cannot succeed.
var errUnencodable = errors.New("agent: reply cannot be encoded")
