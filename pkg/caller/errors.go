// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import "errors"

// Sentinel errors of the calling side.
var (
	// ErrClosed: the caller was closed.
	ErrClosed = errors.New("caller: closed")
	// ErrRunning: Run was called twice.
	ErrRunning = errors.New("caller: already running")
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("caller: invalid options")
	// ErrInvalidRequest: an invoke request is missing or has a bad field.
	ErrInvalidRequest = errors.New("caller: invalid request")
	// ErrUnknownTask: no record exists for the task (never started here, or expired).
	ErrUnknownTask = errors.New("caller: unknown task")
	// ErrOutcomeUnknown: a task's publish was not confirmed (it wraps
	// bus.ErrNotConfirmed too), so the agent may get it or not; or its
	// record failed and working memory did not answer its withdrawal, so
	// part of the record may stand. The task is kept and ends with its
	// answer or a TIMEOUT (Wait: ErrUnknownTask if none of its record landed).
	ErrOutcomeUnknown = errors.New("caller: task sent, outcome unknown")
)
