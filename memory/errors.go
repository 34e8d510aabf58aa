// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import "errors"

// Sentinel errors every backend returns, wrapped with the operation and key.
var (
	// ErrNotFound: the key is missing or expired.
	ErrNotFound = errors.New("memory: not found")
	// ErrInvalidKey: a key, prefix, session id, agent name, task id or index name breaks its naming rule.
	ErrInvalidKey = errors.New("memory: invalid key")
	// ErrInvalidArgument: a TTL, turn, sequence number, index name, member or score, or option is out of its domain.
	ErrInvalidArgument = errors.New("memory: invalid argument")
	// ErrClosed: the memory was closed.
	ErrClosed = errors.New("memory: closed")
	// ErrUnavailable: the backend did not answer in time or the connection failed; the call may be retried.
	ErrUnavailable = errors.New("memory: unavailable")
	// ErrRefused: the server answered the call with an error of its own (out
	// of memory, no permission, misconfigured …) that it or its operator can
	// fix; the call may be retried.
	ErrRefused = errors.New("memory: refused by the server")
)
