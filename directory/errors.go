// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the directory.
var (
	// ErrInvalidOptions: the options are incomplete or out of range.
	ErrInvalidOptions = errors.New("directory: invalid options")
	// ErrClosed: the directory was closed.
	ErrClosed = errors.New("directory: closed")
	// ErrRunning: Run was called twice.
	ErrRunning = errors.New("directory: already running")
	// ErrInvalidKnownAgents is wrapped by every error about the content of a known-agents file.
	ErrInvalidKnownAgents = errors.New("directory: invalid known-agents file")
)

// KnownAgentsError says what is wrong in a known-agents file. It wraps ErrInvalidKnownAgents.
type KnownAgentsError struct {
	File   string // the file's path
	Index  int    // the entry of "agents", or -1 when the error is not about one entry
	Agent  string // the entry's name, "" when unknown
	Reason string // what is wrong
}

// Error names the file, the entry (index and name) and the reason.
func (e *KnownAgentsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %q: ", ErrInvalidKnownAgents, e.File)
	if e.Index >= 0 {
		fmt.Fprintf(&b, "agents[%d]", e.Index)
		if e.Agent != "" {
			fmt.Fprintf(&b, " %q", e.Agent)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrInvalidKnownAgents.
func (e *KnownAgentsError) Unwrap() error { return ErrInvalidKnownAgents }
