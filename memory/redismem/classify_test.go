// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// serverReply is an error the server answered, as go-redis reports one.
type serverReply string

func (e serverReply) Error() string { return string(e) }
func (serverReply) RedisError()     {}

// Every error is classified for memory.Transient: what the server refused
// (its operator can fix it) and what did not answer may be retried; a
// missing key, a closed client and the caller's own end may not.
func TestClassifyForTheTransientRule(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx       context.Context
		err       error
		sentinel  error
		transient bool
	}{
		{context.Background(), goredis.Nil, memory.ErrNotFound, false},
		{context.Background(), goredis.ErrClosed, memory.ErrClosed, false},
		{context.Background(), io.EOF, memory.ErrUnavailable, true},
		{context.Background(), context.DeadlineExceeded, memory.ErrUnavailable, true},
		{context.Background(), serverReply("READONLY You can't write against a read only replica."), memory.ErrUnavailable, true},
		{context.Background(), serverReply("NOPERM User default has no permissions to run the 'set' command"), memory.ErrRefused, true},
		{context.Background(), serverReply("OOM command not allowed when used memory > 'maxmemory'."), memory.ErrRefused, true},
		{ended, io.EOF, nil, false},
		{context.Background(), fmt.Errorf("decode turn: %w", errors.New("bad json")), nil, false},
	} {
		got := classify(tc.ctx, tc.err)
		if tc.sentinel != nil && !errors.Is(got, tc.sentinel) {
			t.Errorf("classify(%v) = %v, want it to wrap %v", tc.err, got, tc.sentinel)
		}
		if memory.Transient(got) != tc.transient {
			t.Errorf("Transient(classify(%v)) = %v, want %v", tc.err, !tc.transient, tc.transient)
		}
	}
}
