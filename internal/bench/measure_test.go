// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/caller"
)

func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	s := sortedCopy(ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5))
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 5 * time.Millisecond}, {99, 10 * time.Millisecond}, {10, time.Millisecond}, {100, 10 * time.Millisecond}} {
		if got := percentile(s, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
}

// fakeChain takes delay per call and fails call number failAt (0: never).
type fakeChain struct {
	delay    time.Duration
	failAt   int64
	calls    atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
}

func (f *fakeChain) Name() string { return "fake" }

func (f *fakeChain) Call(ctx context.Context) error {
	n := f.calls.Add(1)
	cur := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		p := f.peak.Load()
		if cur <= p || f.peak.CompareAndSwap(p, cur) {
			break
		}
	}
	if n == f.failAt {
		return errors.New("boom")
	}
	select {
	case <-time.After(f.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestMeasureThroughputCount(t *testing.T) {
	f := &fakeChain{delay: time.Millisecond}
	tp, err := measureThroughput(context.Background(), f, 8, 100, 0)
	if err != nil || tp.Calls != 100 || f.calls.Load() != 100 || tp.Elapsed <= 0 {
		t.Fatalf("throughput = %+v, %v; %d calls made", tp, err, f.calls.Load())
	}
	if p := f.peak.Load(); p < 2 || p > 8 {
		t.Fatalf("peak in flight = %d, want 2..8", p)
	}
}

func TestMeasureThroughputDuration(t *testing.T) {
	f := &fakeChain{delay: time.Millisecond}
	tp, err := measureThroughput(context.Background(), f, 4, 0, 50*time.Millisecond)
	if err != nil || tp.Calls == 0 || tp.Elapsed < 50*time.Millisecond || int64(tp.Calls) != f.calls.Load() {
		t.Fatalf("throughput = %+v, %v; %d calls made", tp, err, f.calls.Load())
	}
}

func TestMeasureThroughputStopsAtFirstError(t *testing.T) {
	f := &fakeChain{delay: time.Millisecond, failAt: 10}
	_, err := measureThroughput(context.Background(), f, 4, 1000, 0)
	if err == nil || !strings.Contains(err.Error(), "fake call: boom") || f.calls.Load() >= 1000 {
		t.Fatalf("err = %v after %d calls", err, f.calls.Load())
	}
}

func TestMeasureLatency(t *testing.T) {
	f := &fakeChain{delay: 2 * time.Millisecond}
	s, err := measureLatency(context.Background(), f, 5)
	if err != nil || len(s) != 5 || f.peak.Load() != 1 {
		t.Fatalf("samples %v, err %v, peak in flight %d", s, err, f.peak.Load())
	}
	for _, d := range s {
		if d < 2*time.Millisecond {
			t.Fatalf("sample %v shorter than the call", d)
		}
	}
}

func TestOptionsValidation(t *testing.T) {
	ok := Options{AMQPURL: "amqp://h/", RedisURL: "redis://h/0"}
	for _, c := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.AMQPURL = "" }, "RabbitMQ URL is empty"},
		{func(o *Options) { o.RedisURL = "" }, "Redis URL is empty"},
		{func(o *Options) { o.Requests = -1 }, "requests must be at least 1, got -1"},
		{func(o *Options) { o.Warmup = -1 }, "warmup must not be negative"},
		{func(o *Options) { o.Count = -3 }, "count must be at least 1, got -3"},
		{func(o *Options) { o.Duration = -time.Second }, "duration must not be negative"},
		{func(o *Options) { o.Rounds = -1 }, "rounds must be at least 1"},
		{func(o *Options) { o.InFlight = MaxInFlight + 1 }, "in-flight must be between 1 and 1000, got 1001"},
	} {
		o := ok
		c.mod(&o)
		_, err := o.withDefaults()
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want ErrInvalidOptions with %q", err, c.want)
		}
	}
	o, err := ok.withDefaults()
	if err != nil || o.Requests != DefaultRequests || o.Count != DefaultCount || o.Rounds != DefaultRounds ||
		o.InFlight != DefaultInFlight || o.Exchange != "a2a" || o.KeyPrefix != DefaultKeyPrefix {
		t.Fatalf("defaults = %+v, %v", o, err)
	}
}

func TestReportRatiosTableAndJSON(t *testing.T) {
	o, _ := Options{AMQPURL: "amqp://h/", RedisURL: "redis://h/0", Requests: 4, Count: 10, Rounds: 1}.withDefaults()
	r := newReport(o, "run1", settingsOf(o), Sizes{Request: 400, Response: 300, Result: 420, Notification: 600})
	r.Raw.addLatency([]time.Duration{time.Millisecond, time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond})
	r.Raw.addThroughput(throughput{Calls: 10, Elapsed: 10 * time.Millisecond})
	r.Project.addLatency([]time.Duration{2 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 8 * time.Millisecond})
	r.Project.addThroughput(throughput{Calls: 10, Elapsed: 20 * time.Millisecond})
	r.finish()
	if r.LatencyP50Ratio != 2 || r.LatencyP99Ratio != 2 || r.ThroughputRatio != 0.5 || r.Targets.Met {
		t.Fatalf("ratios p50 %v p99 %v throughput %v met %v", r.LatencyP50Ratio, r.LatencyP99Ratio, r.ThroughputRatio, r.Targets.Met)
	}
	if r.Raw.Throughput != 1000 || r.Project.Throughput != 500 || r.Raw.LatencyMeanMs != 2 || len(r.Project.PerRound) != 1 {
		t.Fatalf("figures raw %+v project %+v", r.Raw, r.Project)
	}
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"latency p50", "1.000 ms", "2.000 ms", "throughput", "1000.0/s", "500.0/s", "0.50", "MISSED",
		fmt.Sprintf("agent concurrency 64, caller response concurrency %d", caller.DefaultConcurrency), "limits.max_in_flight 64"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"latencyP50Ratio", "latencyP99Ratio", "throughputRatio", "raw", "project", "bodyBytes", "targets"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if s, ok := m["settings"].(map[string]any); !ok || s["agentConcurrency"] != 64.0 || s["responseConcurrency"] != float64(caller.DefaultConcurrency) ||
		s["guardMaxInFlight"] != 64.0 || s["inFlight"] != 64.0 {
		t.Errorf("JSON settings: %s", b)
	}
	raw := m["raw"].(map[string]any)
	for _, k := range []string{"latencyP50Ms", "latencyP99Ms", "throughputCallsPerSecond", "perRound"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("raw figures lack %q: %s", k, b)
		}
	}
}

func TestFillerIsAJSONStringOfTheSize(t *testing.T) {
	for _, n := range []int{0, 1, 2, 500} {
		b := filler(n)
		if len(b) != n || (n >= 2 && !json.Valid(b)) {
			t.Errorf("filler(%d) = %d bytes, valid JSON %v", n, len(b), json.Valid(b))
		}
	}
}
