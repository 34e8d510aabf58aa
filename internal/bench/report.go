// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"
)

// The targets the project chain, as pkg/node assembles it, is held to
// (issue #27; docs/performance.md).
const (
	// TargetLatencyP50Ratio is the highest acceptable project ÷ raw p50 latency at 1 in flight.
	TargetLatencyP50Ratio = 1.2
	// TargetThroughputRatio is the lowest acceptable project ÷ raw throughput at InFlight.
	TargetThroughputRatio = 0.85
)

// Report is what a run measured. Its JSON form is the --json output of
// `a2abus bench`; durations are in milliseconds, rates in calls per second.
type Report struct {
	RunID            string `json:"runId"`
	Rounds           int    `json:"rounds"`
	RequestsPerRound int    `json:"requestsPerRound"`
	WarmupPerRound   int    `json:"warmupPerRound"`
	InFlight         int    `json:"inFlight"`
	// Settings are the concurrency settings every chain ran with.
	Settings        Settings `json:"settings"`
	CountPerRound   int      `json:"throughputCountPerRound,omitempty"`
	SecondsPerRound float64  `json:"throughputSecondsPerRound,omitempty"`
	// BodyBytes are the sizes of what one call moves, the same in both chains.
	BodyBytes Sizes       `json:"bodyBytes"`
	Raw       ChainResult `json:"raw"`
	Project   ChainResult `json:"project"`
	// LatencyP50Ratio and LatencyP99Ratio are project ÷ raw at 1 in flight.
	LatencyP50Ratio float64 `json:"latencyP50Ratio"`
	LatencyP99Ratio float64 `json:"latencyP99Ratio"`
	// ThroughputRatio is project ÷ raw at InFlight calls in flight.
	ThroughputRatio float64 `json:"throughputRatio"`
	// Observed is the project chain with metrics and tracing on (Options.Observed).
	Observed *ChainResult `json:"observed,omitempty"`
	// ObservedWith says what was on in the observed chain: "metrics and tracing", or "metrics".
	ObservedWith string `json:"observedWith,omitempty"`
	// ObservedThroughputRatio and ObservedLatencyP50Ratio are observed ÷ project.
	ObservedThroughputRatio float64 `json:"observedThroughputRatio,omitempty"`
	ObservedLatencyP50Ratio float64 `json:"observedLatencyP50Ratio,omitempty"`
	Targets                 Targets `json:"targets"`
}

// Targets are the ratio targets and whether this run met them.
type Targets struct {
	LatencyP50RatioMax float64 `json:"latencyP50RatioMax"`
	ThroughputRatioMin float64 `json:"throughputRatioMin"`
	// ObservedThroughputRatioMin is the target of observed ÷ project (with Observed).
	ObservedThroughputRatioMin float64 `json:"observedThroughputRatioMin,omitempty"`
	Met                        bool    `json:"met"`
}

// ChainResult is what one chain measured over all rounds.
type ChainResult struct {
	LatencySamples int     `json:"latencySamples"`
	LatencyP50Ms   float64 `json:"latencyP50Ms"`
	LatencyP99Ms   float64 `json:"latencyP99Ms"`
	LatencyMeanMs  float64 `json:"latencyMeanMs"`
	LatencyMinMs   float64 `json:"latencyMinMs"`
	LatencyMaxMs   float64 `json:"latencyMaxMs"`
	// Throughput is all throughput calls over all throughput time.
	Throughput        float64       `json:"throughputCallsPerSecond"`
	ThroughputCalls   int           `json:"throughputCalls"`
	ThroughputSeconds float64       `json:"throughputSeconds"`
	PerRound          []RoundResult `json:"perRound"`

	samples []time.Duration
	calls   int
	elapsed time.Duration
}

// RoundResult is one round's figures of one chain.
type RoundResult struct {
	LatencyP50Ms float64 `json:"latencyP50Ms"`
	LatencyP99Ms float64 `json:"latencyP99Ms"`
	Throughput   float64 `json:"throughputCallsPerSecond"`
}

func newReport(o Options, runID string, settings Settings, sizes Sizes) *Report {
	r := &Report{RunID: runID, Rounds: o.Rounds, RequestsPerRound: o.Requests, WarmupPerRound: o.Warmup,
		InFlight: o.InFlight, Settings: settings, BodyBytes: sizes,
		Targets: Targets{LatencyP50RatioMax: TargetLatencyP50Ratio, ThroughputRatioMin: TargetThroughputRatio}}
	if o.Duration > 0 {
		r.SecondsPerRound = o.Duration.Seconds()
	} else {
		r.CountPerRound = o.Count
	}
	return r
}

// throughputPhase describes one throughput phase, for progress lines.
func (r *Report) throughputPhase() string {
	if r.SecondsPerRound > 0 {
		return fmt.Sprintf("%gs", r.SecondsPerRound)
	}
	return fmt.Sprintf("%d calls", r.CountPerRound)
}

// addLatency records a round's latency samples; it starts the chain's next round.
func (c *ChainResult) addLatency(samples []time.Duration) {
	c.samples = append(c.samples, samples...)
	s := sortedCopy(samples)
	c.PerRound = append(c.PerRound, RoundResult{LatencyP50Ms: ms(percentile(s, 50)), LatencyP99Ms: ms(percentile(s, 99))})
}

// addThroughput records the throughput of the chain's current round.
func (c *ChainResult) addThroughput(t throughput) {
	c.calls += t.Calls
	c.elapsed += t.Elapsed
	if n := len(c.PerRound); n > 0 {
		c.PerRound[n-1].Throughput = round2(t.PerSecond())
	}
}

// finish computes the aggregate figures of the chain.
func (c *ChainResult) finish() {
	s := sortedCopy(c.samples)
	c.LatencySamples = len(s)
	c.LatencyP50Ms = ms(percentile(s, 50))
	c.LatencyP99Ms = ms(percentile(s, 99))
	if len(s) > 0 {
		var sum time.Duration
		for _, d := range s {
			sum += d
		}
		c.LatencyMeanMs = ms(sum / time.Duration(len(s)))
		c.LatencyMinMs, c.LatencyMaxMs = ms(s[0]), ms(s[len(s)-1])
	}
	t := throughput{Calls: c.calls, Elapsed: c.elapsed}
	c.Throughput = round2(t.PerSecond())
	c.ThroughputCalls = c.calls
	c.ThroughputSeconds = round3(c.elapsed.Seconds())
}

// finish computes the aggregates, the ratios and whether the targets were met.
func (r *Report) finish() {
	r.Raw.finish()
	r.Project.finish()
	r.LatencyP50Ratio = ratio(r.Project.LatencyP50Ms, r.Raw.LatencyP50Ms)
	r.LatencyP99Ratio = ratio(r.Project.LatencyP99Ms, r.Raw.LatencyP99Ms)
	r.ThroughputRatio = ratio(r.Project.Throughput, r.Raw.Throughput)
	r.Targets.Met = r.LatencyP50Ratio <= TargetLatencyP50Ratio && r.ThroughputRatio >= TargetThroughputRatio
}

// WriteTable writes the report as a table for people.
func (r *Report) WriteTable(w io.Writer) error {
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	fmt.Fprintf(w, "a2abus bench, run %s: %d rounds, raw and a2abus interleaved\n", r.RunID, r.Rounds)
	fmt.Fprintf(w, "latency: %d calls per round at 1 in flight (after %d warm-up); throughput: %s per round at %d in flight\n",
		r.RequestsPerRound, r.WarmupPerRound, r.throughputPhase(), r.InFlight)
	fmt.Fprintf(w, "both chains: agent concurrency %d, caller response concurrency %d; a2abus: default configuration through pkg/node, limits.max_in_flight %d\n",
		r.Settings.AgentConcurrency, r.Settings.ResponseConcurrency, r.Settings.GuardMaxInFlight)
	fmt.Fprintf(w, "bodies: request %d B, response %d B, result %d B, notification %d B\n\n",
		r.BodyBytes.Request, r.BodyBytes.Response, r.BodyBytes.Result, r.BodyBytes.Notification)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\traw\ta2abus\ta2abus/raw\t\n")
	fmt.Fprintf(tw, "latency p50\t%.3f ms\t%.3f ms\t%.2f\t\n", r.Raw.LatencyP50Ms, r.Project.LatencyP50Ms, r.LatencyP50Ratio)
	fmt.Fprintf(tw, "latency p99\t%.3f ms\t%.3f ms\t%.2f\t\n", r.Raw.LatencyP99Ms, r.Project.LatencyP99Ms, r.LatencyP99Ratio)
	fmt.Fprintf(tw, "throughput\t%.1f/s\t%.1f/s\t%.2f\t\n", r.Raw.Throughput, r.Project.Throughput, r.ThroughputRatio)
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Observed != nil {
		fmt.Fprintf(tw, "\t\ta2abus+ops\t+ops/a2abus\t\n")
		fmt.Fprintf(tw, "latency p50\t\t%.3f ms\t%.3f\t\n", r.Observed.LatencyP50Ms, r.ObservedLatencyP50Ratio)
		fmt.Fprintf(tw, "throughput\t\t%.1f/s\t%.3f\t\n", r.Observed.Throughput, r.ObservedThroughputRatio)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\ntargets: latency p50 ratio <= %.2f %s; throughput ratio >= %.2f %s\n",
		TargetLatencyP50Ratio, met(r.LatencyP50Ratio <= TargetLatencyP50Ratio),
		TargetThroughputRatio, met(r.ThroughputRatio >= TargetThroughputRatio))
	if err == nil && r.Observed != nil {
		_, err = fmt.Fprintf(w, "%s: throughput ratio >= %.2f %s\n", r.ObservedWith, TargetObservedThroughputRatio,
			met(r.ObservedThroughputRatio >= TargetObservedThroughputRatio))
	}
	return err
}

// ratio is a ÷ b rounded to 3 decimals, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round3(a / b)
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
