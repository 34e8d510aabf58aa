// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"errors"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxFitRounds bounds the encodes encodeRequest tries while it drops
// history to fit the message limit (it halves what it may drop each time).
const maxFitRounds = 24

// encodeRequest encodes tr. A request carries the histories an agent needs
// to go on (its context's, its task's) and the caller's context, so it can
// outgrow the codec's message limit: then the caller's context goes to
// working memory first (spilled holds the write to make before the request
// is sent; tr's callerContext then names its key), then the oldest messages
// of the histories are left out — the context's first, then the task's —
// with a marker in their place, until it fits (tr's lists are replaced, not
// changed). A request too large without any of them is the codec's error.
func (c *Caller) encodeRequest(tr *a2a.TaskRequest, trace a2a.Trace) (env a2a.Envelope, spilled []memory.Op, err error) {
	env, err = c.opts.Codec.Encode(tr, trace)
	if errors.Is(err, a2a.ErrTooLarge) {
		op, ok, serr := c.spillCallerContext(tr) // callercontext.go
		if serr != nil {
			return a2a.Envelope{}, nil, serr
		}
		if ok {
			spilled = []memory.Op{op}
			env, err = c.opts.Codec.Encode(tr, trace)
		}
	}
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
	return env, spilled, err
}
