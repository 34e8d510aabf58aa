// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"errors"
	"fmt"
	"testing"
)

// An a2a-go server refuses a message for a task whose previous turn is
// still finishing (input-required sent, its executor not yet returned):
// the bridge retries it rather than fail the turn. Other errors with no
// transport failure in them stay final.
func TestRetryableTaskStillFinishing(t *testing.T) {
	busy := fmt.Errorf("send message: %w", errors.New("jsonrpc error -32603: "+busyTaskText))
	if _, transient := retryable(busy); !transient {
		t.Errorf("%v: not transient, want a retry", busy)
	}
	if _, transient := retryable(errors.New("jsonrpc error -32602: invalid params")); transient {
		t.Error("invalid params: transient, want final")
	}
}
