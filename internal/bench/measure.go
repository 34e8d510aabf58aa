// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// chain is one way of making a call end to end: the project's or the raw one.
type chain interface {
	// Name is "raw" or "a2abus".
	Name() string
	// Call makes one call and returns once its result is stored and the
	// caller has been woken.
	Call(ctx context.Context) error
}

// callTimeout bounds one call: a lost message fails the bench instead of hanging it.
const callTimeout = 30 * time.Second

// call runs one call of c bounded by callTimeout.
func call(ctx context.Context, c chain) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.Call(ctx); err != nil {
		return fmt.Errorf("%s call: %w", c.Name(), err)
	}
	return nil
}

// warmUp makes n calls one after another and discards their timings.
func warmUp(ctx context.Context, c chain, n int) error {
	for range n {
		if err := call(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// measureLatency makes n calls one after another (1 in flight) and returns
// how long each took.
func measureLatency(ctx context.Context, c chain, n int) ([]time.Duration, error) {
	samples := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := call(ctx, c); err != nil {
			return nil, err
		}
		samples = append(samples, time.Since(start))
	}
	return samples, nil
}

// throughput is what one throughput phase measured.
type throughput struct {
	Calls   int
	Elapsed time.Duration
}

// PerSecond is calls per second, 0 when nothing was measured.
func (t throughput) PerSecond() float64 {
	if t.Elapsed <= 0 {
		return 0
	}
	return float64(t.Calls) / t.Elapsed.Seconds()
}

// measureThroughput keeps inflight calls in flight until count calls have
// completed or, when dur > 0, until dur has passed (calls in flight then are
// completed and counted). The first error stops every worker and is returned.
func measureThroughput(ctx context.Context, c chain, inflight, count int, dur time.Duration) (throughput, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		started atomic.Int64
		done    atomic.Int64
		wg      sync.WaitGroup
	)
	begin := time.Now()
	more := func() bool {
		if ctx.Err() != nil {
			return false
		}
		if dur > 0 {
			return time.Since(begin) < dur
		}
		return started.Add(1) <= int64(count)
	}
	for range inflight {
		wg.Go(func() {
			for more() {
				if err := call(ctx, c); err != nil {
					cancel(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if err := context.Cause(ctx); err != nil {
		return throughput{}, fmt.Errorf("throughput at %d in flight: %w", inflight, err)
	}
	return throughput{Calls: int(done.Load()), Elapsed: elapsed}, nil
}

// percentile returns the p-th percentile (0 < p ≤ 100) of sorted samples by
// the nearest-rank method; 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// sortedCopy returns the samples sorted ascending, leaving samples as they are.
func sortedCopy(samples []time.Duration) []time.Duration {
	s := slices.Clone(samples)
	slices.Sort(s)
	return s
}
