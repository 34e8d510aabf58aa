// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/pkg/ops"
)

// A part's own readiness check makes the process not ready while it fails,
// named by the part.
func TestReadinessAsksTheChecks(t *testing.T) {
	o, err := ops.New(ops.Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	var stuck atomic.Bool
	o.Check("agent process", func() error {
		if stuck.Load() {
			return errors.New("input unread for 3s")
		}
		return nil
	})
	if err := o.Ready(context.Background()); err != nil {
		t.Fatalf("ready with a passing check: %v", err)
	}
	stuck.Store(true)
	if err := o.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "agent process: input unread for 3s") {
		t.Fatalf("Ready = %v, want the failing check named", err)
	}
	var none *ops.Ops
	none.Check("x", func() error { return errors.New("no") }) // a nil Ops observes nothing
}
