// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"context"

	"github.com/a2abus/a2abus/pkg/llm"
)

// meter counts the tokens of a run's completions as they come (llm.UsageOf),
// so a step is stored with what the session has spent up to it.
type meter struct {
	llm.Client
	total int64
}

func (m *meter) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.Client.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	u, _ := llm.UsageOf(req, resp)
	m.total += int64(u.TotalTokens)
	return resp, nil
}
