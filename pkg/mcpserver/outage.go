// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
)

// pingBound bounds the health check of working memory after a call ran out of time.
const pingBound = 2 * time.Second

// explain says what is down when err comes from an outage, keeping err
// wrapped so tools.ErrorResult still finds its code: working memory
// (memory.ErrUnavailable: UNAVAILABLE), the message bus (a publish not
// confirmed: UNAVAILABLE), or nothing answering within bound — then working
// memory is pinged, and the error names it when it does not answer
// (UNAVAILABLE), else the message bus or the agent (TIMEOUT). ctx is the
// call's; other errors are returned as they are.
func (s *Server) explain(ctx context.Context, err error, bound time.Duration) error {
	switch {
	case errors.Is(err, memory.ErrUnavailable):
		return fmt.Errorf("working memory is unavailable (is Redis down?): %w", err)
	case errors.Is(err, bus.ErrNotConfirmed), errors.Is(err, bus.ErrNotSent):
		return fmt.Errorf("the message bus did not take the message (is RabbitMQ down?): %w", err)
	case errors.Is(err, bus.ErrClosed):
		return fmt.Errorf("the message bus connection is closed: %w", err)
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded):
		pctx, cancel := context.WithTimeout(context.Background(), pingBound)
		defer cancel()
		if perr := s.opts.Memory.Ping(pctx); perr != nil {
			if !errors.Is(perr, memory.ErrUnavailable) {
				perr = fmt.Errorf("%w: %w", memory.ErrUnavailable, perr)
			}
			return fmt.Errorf("no answer within %s: working memory is unavailable (is Redis down?): %w (%w)", bound, perr, err)
		}
		return fmt.Errorf("no answer within %s (working memory answers; the message bus or the agent did not): %w", bound, err)
	}
	return err
}
