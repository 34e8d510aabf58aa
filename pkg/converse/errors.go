// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidSpec: a conversation's spec or options are incomplete or out of range.
	ErrInvalidSpec = errors.New("converse: invalid spec")
	// ErrForbidden: the policy does not let the local agent talk to the remote one.
	ErrForbidden = errors.New("converse: forbidden")
	// ErrLoop: the conversation would loop (self-loop, cycle or too many hops).
	ErrLoop = errors.New("converse: loop refused")
	// ErrNotFound: no conversation has that id (never started, or expired).
	ErrNotFound = errors.New("converse: no such conversation")
	// ErrDriven: another process drives the conversation (holds its lease).
	ErrDriven = errors.New("converse: driven by another process")
	// ErrLeaseLost: the driver lost its lease; another may drive now.
	ErrLeaseLost = errors.New("converse: lease lost")
	// ErrNotDriven: no process drives the conversation now; a control was recorded only.
	ErrNotDriven = errors.New("converse: not driven")
	// ErrInvalidCommand: a control command is unknown or does not apply.
	ErrInvalidCommand = errors.New("converse: invalid command")
	// ErrClosed: the orchestrator was closed.
	ErrClosed = errors.New("converse: closed")
)
