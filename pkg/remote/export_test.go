// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"

	"github.com/a2abus/a2abus/pkg/agent"
)

// Handle is the bridge's handler, for tests that run a turn without a bus.
func (b *Bridge) Handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	return b.handle(ctx, t)
}
