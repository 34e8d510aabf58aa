// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package backoff

import (
	"context"
	"testing"
	"time"
)

// Each wait lies in the upper half of Min·2ⁿ, capped at Max, however many
// retries came before.
func TestDelayDoublesWithinJitterUpToTheCap(t *testing.T) {
	p := Policy{Min: 100 * time.Millisecond, Max: 2 * time.Second}
	for n, ceil := range []time.Duration{p.Min, 2 * p.Min, 4 * p.Min, 8 * p.Min, 16 * p.Min, p.Max, p.Max} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.Delay(n)
			if d < ceil/2 || d > ceil {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", n, d, ceil/2, ceil)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Delay(%d) gave one value in 200 draws: no jitter", n)
		}
	}
	for _, n := range []int{64, 1000, 1 << 30} {
		if d := p.Delay(n); d > p.Max || d < p.Max/2 {
			t.Errorf("Delay(%d) = %v, want within [%v, %v]", n, d, p.Max/2, p.Max)
		}
	}
	if d := p.Delay(-3); d > p.Min {
		t.Errorf("Delay(-3) = %v, above Min %v", d, p.Min)
	}
}

func TestDelayEdgeCases(t *testing.T) {
	if d := (Policy{}).Delay(5); d != 0 {
		t.Errorf("zero policy waits %v, want 0", d)
	}
	// Max below Min: Min is the cap.
	p := Policy{Min: time.Second, Max: time.Millisecond}
	for n := range 5 {
		if d := p.Delay(n); d < p.Min/2 || d > p.Min {
			t.Errorf("Delay(%d) with Max < Min = %v, want within [%v, %v]", n, d, p.Min/2, p.Min)
		}
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Error("a short sleep reported its context ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Error("a sleep under an ended context reported it passed")
	}
	if time.Since(start) > 10*time.Second {
		t.Error("a sleep under an ended context waited")
	}
}

func TestDelayDoesNotOverflow(t *testing.T) {
	p := Policy{Min: time.Second, Max: time.Duration(1<<63 - 1)}
	for _, n := range []int{40, 62, 63, 100} {
		if d := p.Delay(n); d <= 0 {
			t.Errorf("Delay(%d) with an unbounded Max = %v", n, d)
		}
	}
}
