// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/memory"
)

// MemoryReader is what get_from_working_memory needs of working memory: a
// read by key. A memory.Store is one.
type MemoryReader interface {
	// Get returns the value of key, or an error wrapping memory.ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
}

var getFromWorkingMemoryDef = definition{
	name:  "get_from_working_memory",
	needs: []string{"Memory"},
	description: "Read a value from this conversation's working memory by its key, such as the result of an agent " +
		"task at the memoryKey given by invoke_agent or by a task notification. Results are kept for a limited " +
		"time (60 minutes by default).",
	params: []param{
		{name: "key", required: true, schema: map[string]any{
			"type": "string", "minLength": 1, "maxLength": memory.MaxKeyLen,
			"description": "The exact key, e.g. the memoryKey returned by invoke_agent.",
		}},
	},
}

// memoryArgs are get_from_working_memory's arguments.
type memoryArgs struct {
	Key string `json:"key"`
}

// NotFoundError says no value is stored at Key. It wraps memory.ErrNotFound.
type NotFoundError struct {
	Key string
}

// Error says the key holds nothing and why that may be.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no value at key '%s': it was never stored or has expired (results are kept for a limited time)", e.Key)
}

// Unwrap returns memory.ErrNotFound.
func (e *NotFoundError) Unwrap() error { return memory.ErrNotFound }

// getFromWorkingMemory returns the value at the key: parsed when it is JSON,
// else as a string.
func (s *Set) getFromWorkingMemory(ctx context.Context, raw json.RawMessage) (any, error) {
	const tool = "get_from_working_memory"
	var args memoryArgs
	if err := decodeArgs(tool, raw, &args); err != nil {
		return nil, err
	}
	if err := memory.ValidateKey(args.Key); err != nil {
		rule := strings.TrimPrefix(err.Error(), memory.ErrInvalidKey.Error()+": ")
		return nil, &ArgumentError{Tool: tool, Path: "key", Message: fmt.Sprintf("argument %q: not a valid key: %s", "key", rule), Err: err}
	}
	if !strings.HasPrefix(args.Key, s.sessionPrefix) {
		return nil, &ArgumentError{Tool: tool, Path: "key", Message: fmt.Sprintf(
			"argument %q: %q is not a key of this conversation; its keys start with %q (use the memoryKey from invoke_agent or from a notification)",
			"key", args.Key, s.sessionPrefix)}
	}
	value, err := s.deps.Memory.Get(ctx, args.Key)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, &NotFoundError{Key: args.Key}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read %q: %w", tool, args.Key, err)
	}
	if json.Valid(value) {
		return json.RawMessage(bytes.TrimSpace(value)), nil
	}
	return string(value), nil
}
