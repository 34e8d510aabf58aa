// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package backoff is the one wait between the attempts of every retry loop
// of the project: exponential from a floor, capped, with jitter so that
// processes failing together do not retry together. The bus's re-dial and
// re-subscribe, working memory's retries, the agent's reply publish, a
// workflow step's attempts, a conversation's failed calls and the exec
// bridge's restarts all use it.
//
// Kept rather than github.com/cenkalti/backoff/v5 (weighed 2026-11, v5.0.3):
//   - Its ExponentialBackOff is stateful (NextBackOff, Reset): every loop
//     here computes its wait from the attempt it is at (Delay(n)), so each
//     of the nine packages using it would keep and reset a back-off object.
//   - Its jitter is ±RandomizationFactor around the capped interval, so a
//     wait passes MaxInterval by up to half of it (Max 2s: up to 3s). Here
//     the cap is a cap ([d/2, d]): memory.Retry's 2s ceiling, the bus's
//     ReconnectMax and the exec bridge's MaxBackoff mean what they say.
//   - The agents would link it for this alone: `go list -deps
//     ./cmd/sample-agent | grep cenkalti` finds it today only through the
//     OTLP exporters' retry packages, which are leaving the agent binaries.
//
// This package is some twenty lines of code.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy is an exponential backoff: the wait before retry n (0-based) is
// Min·2ⁿ capped at Max, drawn at random from the upper half of that value.
// The zero Policy waits nothing.
type Policy struct {
	// Min is the ceiling of the first wait.
	Min time.Duration
	// Max caps every wait; below Min, Min is the cap.
	Max time.Duration
}

// Delay is the wait before retry n (0-based): within [d/2, d] for
// d = min(Min·2ⁿ, Max). A negative n counts as 0.
func (p Policy) Delay(n int) time.Duration {
	d, hi := p.Min, max(p.Max, p.Min)
	for i := 0; i < n && d < hi; i++ {
		if d > hi/2 { // doubling would pass the cap (or overflow)
			d = hi
			break
		}
		d *= 2
	}
	d = min(d, hi)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Sleep waits d, or less when ctx ends first; it reports whether the whole
// wait passed (false: ctx ended).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
