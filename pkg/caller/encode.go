// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"errors"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxFitRounds bounds the encodes encodeRequest tries while it drops
// history to fit the message limit (it halves what it may drop each time).
const maxFitRounds = 24

// encodeRequest encodes tr. A request carries the histories an agent needs
// to go on (its context's, its task's), so it can outgrow the codec's
// message limit: then the oldest messages are left out — the context's
// first, then the task's — with a marker in their place, until it fits
// (tr's lists are replaced, not changed). A request too large without any
// history is the codec's error.
func (c *Caller) encodeRequest(tr *a2a.TaskRequest, trace a2a.Trace) (a2a.Envelope, error) {
	env, err := c.opts.Codec.Encode(tr, trace)
	for round := 0; errors.Is(err, a2a.ErrTooLarge) && round < maxFitRounds; round++ {
		list, what := &tr.ContextHistory, "context"
		if droppable(tr.ContextHistory) == 0 {
			list, what = &tr.History, "task"
		}
		n := droppable(*list)
		if n == 0 {
			break
		}
		*list = dropOldest(*list, max(n/2, 1), what)
		env, err = c.opts.Codec.Encode(tr, trace)
	}
	return env, err
}
