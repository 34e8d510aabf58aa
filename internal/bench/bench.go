// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package bench measures, in one run, a2abus's full invoke chain beside a
// raw amqp091-go + go-redis chain with the same durability, on the real
// RabbitMQ and Redis, and reports both and their ratios.
//
// Each round measures latency (calls one at a time, after a warm-up) and
// throughput (InFlight calls in flight) of both chains, alternating which
// goes first, so that machine noise hits both alike; the figures aggregate
// all rounds. Every queue and key a run creates carries its run id and is
// deleted at the end, even when the run fails or is interrupted.
package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/ops"
)

// ErrInvalidOptions is wrapped by every error about unusable Options; the
// message names the field.
var ErrInvalidOptions = errors.New("bench: invalid options")

// Defaults of Options.
const (
	DefaultRequests  = 300
	DefaultWarmup    = 20
	DefaultCount     = 2000
	DefaultRounds    = 3
	DefaultInFlight  = 64
	DefaultKeyPrefix = "a2abus:"
	DefaultResultTTL = 60 * time.Minute
	DefaultTimeout   = 2 * time.Second
	// MaxInFlight bounds InFlight (it is also the agent's concurrency, which
	// agent.concurrency bounds to 1000).
	MaxInFlight = 1000
)

// dialTimeout bounds each RabbitMQ dial of the raw chain and the clean-up.
const dialTimeout = 10 * time.Second

// benchText is the text every call sends and the echo skill returns.
const benchText = "a2abus bench: echo this text back"

// Options configures a run. Zero fields take the defaults.
type Options struct {
	// AMQPURL and RedisURL name the real servers. Required.
	AMQPURL, RedisURL string
	// Exchange and QueueType are the bus topology's (defaults a2a, classic).
	Exchange, QueueType string
	// KeyPrefix starts every Redis key (default "a2abus:"); Timeout bounds each Redis call (2s).
	KeyPrefix string
	Timeout   time.Duration
	// ResultTTL is the TTL of stored results in both chains (60m).
	ResultTTL time.Duration
	// Requests is the number of latency samples per round and chain (300).
	Requests int
	// Warmup is the number of untimed calls per round and chain before the latency samples (20).
	Warmup int
	// Count is the number of throughput calls per round and chain (1000), unless Duration is set.
	Count int
	// Duration, when > 0, makes each throughput phase last this long instead of Count calls.
	Duration time.Duration
	// Rounds is how many times both chains are measured, alternating their order (3).
	Rounds int
	// InFlight is the number of calls in flight during throughput phases (64).
	InFlight int
	// Progress receives one line per phase; nil means none.
	Progress io.Writer
	// Logger receives the project chain's logs; nil means none.
	Logger *zap.Logger
	// Observed also measures the a2abus chain with metrics and tracing on
	// (pkg/ops: Prometheus metrics, spans sampled at SampleRatio and
	// exported in batches), interleaved with the others, and reports its
	// ratios to the chain with them off.
	Observed bool
	// SampleRatio is the observed chain's trace sampling, parent-based as
	// ops.trace_sample_ratio (0: its default, ops.DefaultTraceSampleRatio;
	// 1: every span).
	SampleRatio float64
	// ObservedMetricsOnly leaves tracing off in the observed chain: its
	// ratio is then the cost of the metrics alone.
	ObservedMetricsOnly bool
}

// withDefaults validates o and fills its zero fields.
func (o Options) withDefaults() (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return o, fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	switch {
	case o.AMQPURL == "":
		return bad("the RabbitMQ URL is empty")
	case o.RedisURL == "":
		return bad("the Redis URL is empty")
	case o.Requests < 0:
		return bad("requests must be at least 1, got %d", o.Requests)
	case o.Warmup < 0:
		return bad("warmup must not be negative, got %d", o.Warmup)
	case o.Count < 0:
		return bad("count must be at least 1, got %d", o.Count)
	case o.Duration < 0:
		return bad("duration must not be negative, got %s", o.Duration)
	case o.Rounds < 0:
		return bad("rounds must be at least 1, got %d", o.Rounds)
	case o.InFlight < 0 || o.InFlight > MaxInFlight:
		return bad("in-flight must be between 1 and %d, got %d", MaxInFlight, o.InFlight)
	case o.Timeout < 0:
		return bad("timeout must not be negative, got %s", o.Timeout)
	case o.ResultTTL < 0:
		return bad("result TTL must not be negative, got %s", o.ResultTTL)
	case o.SampleRatio < 0 || o.SampleRatio > 1 || o.SampleRatio != o.SampleRatio:
		return bad("the sample ratio must be between 0 and 1, got %g", o.SampleRatio)
	}
	if o.SampleRatio == 0 {
		o.SampleRatio = ops.DefaultTraceSampleRatio
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Requests, DefaultRequests)
	def(&o.Count, DefaultCount)
	def(&o.Rounds, DefaultRounds)
	def(&o.InFlight, DefaultInFlight)
	if o.Exchange == "" {
		o.Exchange = a2a.DefaultExchange
	}
	if o.QueueType == "" {
		o.QueueType = rabbitmq.QueueTypeClassic
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultKeyPrefix
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ResultTTL == 0 {
		o.ResultTTL = DefaultResultTTL
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o, nil
}

// Settings are the concurrency settings of a run, the same in every chain.
type Settings struct {
	// InFlight is the calls in flight of the throughput phases.
	InFlight int `json:"inFlight"`
	// AgentConcurrency is the tasks the agent (the raw worker) runs at once,
	// its prefetch: agent.concurrency, set to InFlight.
	AgentConcurrency int `json:"agentConcurrency"`
	// ResponseConcurrency is the responses the caller (the raw response
	// consumer) handles at once, its prefetch: caller.concurrency's default.
	ResponseConcurrency int `json:"responseConcurrency"`
	// GuardMaxInFlight is the a2abus caller's limits.max_in_flight: its
	// default, raised to InFlight when below (the guard refuses calls beyond it).
	GuardMaxInFlight int `json:"guardMaxInFlight"`
}

// settingsOf are the settings of a run of o.
func settingsOf(o Options) Settings {
	return Settings{InFlight: o.InFlight, AgentConcurrency: o.InFlight, ResponseConcurrency: caller.DefaultConcurrency,
		GuardMaxInFlight: max(guard.DefaultMaxInFlight, o.InFlight)}
}

// Sizes are the body sizes, in bytes, of one call; the raw chain sends
// bodies of the sizes the project chain's first call measured.
type Sizes struct {
	Request      int `json:"request"`
	Response     int `json:"response"`
	Result       int `json:"result"`
	Notification int `json:"notification"`
	Record       int `json:"record"` // the task's record, as the caller stored it before publishing
}

// Run connects both chains, measures them round after round and returns
// the report. It deletes every queue and key it created before returning,
// whatever happened; a clean-up failure is returned with the report.
func Run(ctx context.Context, opts Options) (rep *Report, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return nil, err
	}
	runID := strings.ToLower(rand.Text()[:10])
	settings := settingsOf(opts)
	project, err := newProjectChain(ctx, projectConfig{amqpURL: opts.AMQPURL, redisURL: opts.RedisURL,
		exchange: opts.Exchange, queueType: opts.QueueType, keyPrefix: opts.KeyPrefix, runID: runID,
		redisTimeout: opts.Timeout, ttl: opts.ResultTTL, settings: settings, text: benchText, log: opts.Logger})
	if err != nil {
		return nil, err
	}
	// Both servers answered: from here on, whatever happens, stop the chains
	// and delete what they may have created.
	queues := append(project.queues(), rawQueues(runID)...)
	defer func() {
		err = errors.Join(err, project.close())
		err = errors.Join(err, cleanUp(ctx, opts, runID, queues))
	}()
	sizes, err := project.sizes(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := newRawChain(ctx, rawConfig{amqpURL: opts.AMQPURL, redisURL: opts.RedisURL,
		exchange: opts.Exchange, queueType: opts.QueueType, keyPrefix: opts.KeyPrefix, runID: runID,
		redisTimeout: opts.Timeout, ttl: opts.ResultTTL, workers: settings.AgentConcurrency,
		responders: settings.ResponseConcurrency, sizes: sizes})
	if err != nil {
		return nil, err
	}
	defer raw.close()

	rep = newReport(opts, runID, settings, sizes)
	chains := []chain{raw, project}
	if opts.Observed {
		o, closeObs, err := newObservability(!opts.ObservedMetricsOnly, opts.SampleRatio)
		if err != nil {
			return nil, err
		}
		defer closeObs()
		observed, err := newProjectChain(ctx, projectConfig{amqpURL: opts.AMQPURL, redisURL: opts.RedisURL,
			exchange: opts.Exchange, queueType: opts.QueueType, keyPrefix: opts.KeyPrefix, runID: runID + "o",
			redisTimeout: opts.Timeout, ttl: opts.ResultTTL, settings: settings, text: benchText, log: opts.Logger, ops: o})
		if err != nil {
			return nil, err
		}
		queues = append(queues, observed.queues()...)
		defer func() { err = errors.Join(err, observed.close()) }()
		rep.Observed, rep.ObservedWith = &ChainResult{}, fmt.Sprintf("metrics and tracing, %g of traces sampled", opts.SampleRatio)
		if opts.ObservedMetricsOnly {
			rep.ObservedWith = "metrics"
		}
		chains = append(chains, observed)
	}
	if err := runRounds(ctx, opts, rep, chains...); err != nil {
		return nil, err
	}
	rep.finish()
	rep.observedRatios()
	return rep, nil
}

// runRounds measures the chains (raw, a2abus and, when measured, the
// observed a2abus) opts.Rounds times into rep: in each round the latency of
// each, then their throughput, the first chain changing from round to round.
func runRounds(ctx context.Context, opts Options, rep *Report, chains ...chain) error {
	results := map[string]*ChainResult{"raw": &rep.Raw, "a2abus": &rep.Project, observedChainName: rep.Observed}
	for round := 1; round <= opts.Rounds; round++ {
		order := make([]chain, 0, len(chains))
		for i := range chains {
			order = append(order, chains[(i+round-1)%len(chains)])
		}
		for _, c := range order {
			fmt.Fprintf(opts.Progress, "round %d/%d: %s latency, %d calls at 1 in flight\n", round, opts.Rounds, c.Name(), opts.Requests)
			if err := warmUp(ctx, c, opts.Warmup); err != nil {
				return fmt.Errorf("round %d: warm-up: %w", round, err)
			}
			samples, err := measureLatency(ctx, c, opts.Requests)
			if err != nil {
				return fmt.Errorf("round %d: latency: %w", round, err)
			}
			results[c.Name()].addLatency(samples)
		}
		for _, c := range order {
			fmt.Fprintf(opts.Progress, "round %d/%d: %s throughput, %s at %d in flight\n", round, opts.Rounds, c.Name(), rep.throughputPhase(), opts.InFlight)
			t, err := measureThroughput(ctx, c, opts.InFlight, opts.Count, opts.Duration)
			if err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
			results[c.Name()].addThroughput(t)
		}
	}
	return nil
}

// cleanUp deletes the run's queues and Redis keys with fresh connections
// and a context of its own, so an interrupted run is cleaned up too.
func cleanUp(ctx context.Context, opts Options, runID string, queues []string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	var errs []error
	if err := deleteQueues(opts.AMQPURL, queues); err != nil {
		errs = append(errs, fmt.Errorf("bench: clean up queues: %w", err))
	}
	n, err := deleteKeys(ctx, opts.RedisURL, max(opts.Timeout, cleanupCallTimeout), opts.KeyPrefix, runID)
	if err != nil {
		errs = append(errs, fmt.Errorf("bench: clean up Redis keys: %w", err))
	}
	fmt.Fprintf(opts.Progress, "cleaned up: %d queues, %d Redis keys of run %s\n", len(queues), n, runID)
	return errors.Join(errs...)
}

// redactedParseErr strips the URL (which may hold a password) from a URL parse error.
func redactedParseErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
