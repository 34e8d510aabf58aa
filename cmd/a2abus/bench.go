// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/bench"
	"github.com/a2abus/a2abus/pkg/ops"
)

// Servers the bench uses when the configuration names none.
const (
	benchDefaultAMQPURL  = "amqp://guest:guest@127.0.0.1:5672/"
	benchDefaultRedisURL = "redis://127.0.0.1:6379/0"
)

// newBenchCmd builds `a2abus bench`.
func newBenchCmd(c *cli) *cobra.Command {
	var (
		o          bench.Options
		asJSON     bool
		cpuProfile string
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the invoke chain beside a raw amqp091-go + go-redis chain with the same durability",
		Long: "Measures, on the real RabbitMQ and Redis, a2abus's invoke chain as a program assembles it through pkg/node with\n" +
			"the default configuration (guard, identity, policy, directory vetting; ops off): caller.Call -> an echo agent on\n" +
			"its own node -> its confirmed result -> the response handler storing the result and the notification in Redis, beside a\n" +
			"raw amqp091-go + go-redis chain with the same durability (persistent, confirmed publishes to durable queues,\n" +
			"manual acks after the work, SET EX + RPUSH + PUBLISH in one MULTI before the response ack).\n" +
			"Each round measures the latency of both at 1 in flight and their throughput at --in-flight, alternating\n" +
			"which goes first; the table (or --json) gives both, the ratios a2abus ÷ raw and the concurrency both ran with\n" +
			"(agent concurrency = --in-flight, the caller's response concurrency, limits.max_in_flight). --observed adds\n" +
			"the a2abus+ops chain (metrics, every span sampled and exported). Without bus.url or\n" +
			"redis.url it uses " + benchDefaultAMQPURL + " and " + benchDefaultRedisURL + ". Every queue and key it creates\n" +
			"is deleted at the end; the exchange and the dead-letter topology are shared and left in place.",
		Example: "  a2abus bench\n" +
			"  a2abus bench --rounds 5 --in-flight 64 --duration 10s --json",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			for _, f := range []struct {
				name string
				v    int
			}{{"requests", o.Requests}, {"count", o.Count}, {"rounds", o.Rounds}, {"in-flight", o.InFlight}} {
				if f.v < 1 {
					return fmt.Errorf("bench: --%s must be at least 1, got %d", f.name, f.v)
				}
			}
			amqpURL, redisURL, err := benchServers(e, c)
			if err != nil {
				return err
			}
			o.AMQPURL, o.RedisURL = amqpURL, redisURL
			o.Exchange, o.QueueType = e.Config.Bus.Exchange, e.Config.Bus.QueueType
			o.KeyPrefix, o.Timeout = e.Config.Redis.KeyPrefix, e.Config.Redis.Timeout
			o.ResultTTL = e.Config.Memory.ResultTTL
			o.Progress = c.stderr
			// Per-task info lines would measure the terminal, not the chain.
			o.Logger = e.Log
			if e.Log.Core().Enabled(zap.InfoLevel) {
				o.Logger = e.Log.WithOptions(zap.IncreaseLevel(zap.WarnLevel))
			}
			if cpuProfile != "" {
				stop, err := startCPUProfile(cpuProfile)
				if err != nil {
					return err
				}
				defer stop()
			}
			rep, err := bench.Run(ctx, o)
			if rep == nil {
				return err
			}
			// A report comes with at most a clean-up error: show both.
			if asJSON {
				return errors.Join(json.NewEncoder(e.Out).Encode(rep), err)
			}
			return errors.Join(rep.WriteTable(e.Out), err)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&o.Requests, "requests", bench.DefaultRequests, "latency samples per round and chain, at 1 in flight")
	f.IntVar(&o.Warmup, "warmup", bench.DefaultWarmup, "untimed calls per round and chain before the latency samples")
	f.IntVar(&o.Count, "count", bench.DefaultCount, "throughput calls per round and chain (unless --duration is set)")
	f.DurationVar(&o.Duration, "duration", 0, "length of each throughput phase, instead of --count calls (e.g. 5s)")
	f.IntVar(&o.Rounds, "rounds", bench.DefaultRounds, "rounds; each measures both chains, alternating which goes first")
	f.IntVar(&o.InFlight, "in-flight", bench.DefaultInFlight, "calls in flight during the throughput phases")
	f.BoolVar(&asJSON, "json", false, "print exactly one JSON object on stdout instead of the table")
	f.BoolVar(&o.Observed, "observed", false, "also measure the a2abus+ops chain: the same chain with metrics and tracing on (sampled at --sample-ratio), and print its ratio to the chain with them off")
	f.Float64Var(&o.SampleRatio, "sample-ratio", ops.DefaultTraceSampleRatio, "with --observed: the share of traces sampled (parent-based, as ops.trace_sample_ratio); 1 samples every span")
	f.BoolVar(&o.ObservedMetricsOnly, "observed-metrics-only", false, "with --observed: metrics on, tracing off (the cost of the metrics alone)")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	return cmd
}

// benchServers returns the RabbitMQ and Redis URLs of the configuration,
// or the local defaults (said on stderr) when it names none.
func benchServers(e *env, c *cli) (amqpURL, redisURL string, err error) {
	amqpURL, redisURL = e.Config.Bus.URL, e.Config.Redis.URL
	r := e.Config.Redis
	switch {
	case len(r.Addrs) > 0:
		return "", "", errors.New("bench: redis.addrs (Sentinel or Cluster) is not supported: name one server with redis.url")
	case r.Username != "" || r.Password != "" || r.DB != 0:
		return "", "", errors.New("bench: redis.username, redis.password and redis.db are not used: put them in redis.url")
	}
	if amqpURL == "" {
		amqpURL = benchDefaultAMQPURL
		fmt.Fprintf(c.stderr, "bench: bus.url is not set; using %s\n", rabbitmq.RedactURL(amqpURL))
	}
	if redisURL == "" {
		redisURL = benchDefaultRedisURL
		fmt.Fprintf(c.stderr, "bench: redis.url is not set; using %s\n", redisURL)
	}
	return amqpURL, redisURL, nil
}

// startCPUProfile starts profiling into path and returns what stops it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench: create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("bench: start CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
