// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command soak is a2abus's soak test (internal/soak): `soak run` starts a
// private RabbitMQ node and Redis server, agent and caller processes (this
// same binary, `soak agent` and `soak caller`) and a seeded fault injector,
// then checks the ledger the callers wrote against working memory. Progress
// goes to stderr, one JSON summary line to stdout; the exit code is 1 when
// the run found a lost, duplicated or overwritten task, a stuck message or an
// unexplained dead letter, or did not test what it was asked to (a kind of
// fault planned and never injected, among others: soak.Summary.FailReasons,
// also in the line's failedBecause), 2 when the run could not be carried out.
//
// The knobs are environment variables: SOAK_TASKS (2000), SOAK_DURATION
// (10m, the load's cap), SOAK_SEED (time-based; printed), SOAK_RATE (tasks
// per second the always-on callers start together; 0, the default, is as
// fast as they can), SOAK_AGENTS (3), SOAK_AGENT_REPLICAS (1: processes
// per agent; on a cluster on different nodes), SOAK_CALLERS (2), SOAK_WORKERS (16 per
// always-on caller), SOAK_ONESHOTS (1), SOAK_BATCH (25), SOAK_FAULTS (1; 0
// disables them), SOAK_FAULT_GAP (5s, the mean time between faults),
// SOAK_DRAIN (2m), SOAK_QUIET (2s), SOAK_KEEP=1 (keep the run folder and its
// logs, kept anyway when the run fails), and SOAK_SHARED=1 to run on the
// shared servers (A2ABUS_TEST_AMQP_URL, A2ABUS_TEST_REDIS_URL) with only the
// kill faults, and Redis pauses with SOAK_SHARED_FAULTS=1 (never broker
// faults there).
//
// On a cluster (make soak-cluster: scripts/cluster.sh run starts it and sets
// SOAK_CLUSTER_*), the soak runs on its three RabbitMQ nodes with quorum
// queues and on its Redis: SOAK_REDIS=sentinel (the default) or cluster;
// SOAK_WAIT_REPLICAS (0) and SOAK_WAIT_TIMEOUT (1s) set redis.wait_replicas
// and redis.wait_timeout for the agents and callers.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/internal/soak"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: soak run|scale|agent|caller")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "agent":
		err = soak.RunAgent(ctx)
	case "caller":
		err = soak.RunCaller(ctx)
	case "run":
		os.Exit(run(ctx))
	case "scale":
		os.Exit(scale(ctx))
	default:
		err = fmt.Errorf("unknown subcommand %q: want run, scale, agent or caller", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// progressLog is the logger of run and scale: progress on stderr.
func progressLog() *zap.Logger {
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05.000")
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(os.Stderr), zapcore.InfoLevel))
}

// run is `soak run`: it returns the exit code.
func run(ctx context.Context) int {
	log := progressLog()
	defer func() { _ = log.Sync() }()
	o, err := options()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	if o.Cluster, err = soak.ClusterFromEnv(envOr("SOAK_REDIS", soak.RedisSentinel), log); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	sum, err := soak.Run(ctx, o, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	line, err := json.Marshal(sum)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak: encode the summary:", err)
		return 2
	}
	fmt.Println(string(line))
	if why := sum.FailReasons(); len(why) > 0 {
		fmt.Fprintln(os.Stderr, "soak: failed: "+strings.Join(why, "; "))
		return 1
	}
	return 0
}

// options reads the knobs.
func options() (soak.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return soak.Options{}, fmt.Errorf("find this binary: %w", err)
	}
	o := soak.Options{Exe: exe, Faults: true, Seed: uint64(time.Now().UnixNano())}
	ints := []struct {
		name string
		dst  *int
		def  int
	}{
		{"SOAK_TASKS", &o.Tasks, 2000}, {"SOAK_AGENTS", &o.Agents, 3}, {"SOAK_CALLERS", &o.Callers, 2},
		{"SOAK_WORKERS", &o.Workers, 16}, {"SOAK_ONESHOTS", &o.OneShots, 1}, {"SOAK_BATCH", &o.Batch, 25},
		{"SOAK_WAIT_REPLICAS", &o.WaitReplicas, 0}, {"SOAK_AGENT_REPLICAS", &o.AgentReplicas, 1},
	}
	for _, k := range ints {
		*k.dst = k.def
		if v := os.Getenv(k.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return o, fmt.Errorf("%s: want a whole number, got %q", k.name, v)
			}
			*k.dst = n
		}
	}
	durs := []struct {
		name string
		dst  *time.Duration
		def  time.Duration
	}{
		{"SOAK_DURATION", &o.Duration, 10 * time.Minute}, {"SOAK_FAULT_GAP", &o.MeanGap, 5 * time.Second},
		{"SOAK_DRAIN", &o.Drain, 2 * time.Minute}, {"SOAK_QUIET", &o.Quiet, 2 * time.Second},
		{"SOAK_WAIT_TIMEOUT", &o.WaitTimeout, time.Second},
	}
	for _, k := range durs {
		*k.dst = k.def
		if v := os.Getenv(k.name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return o, fmt.Errorf("%s: want a duration such as 90s, got %q", k.name, v)
			}
			*k.dst = d
		}
	}
	if v := os.Getenv("SOAK_SEED"); v != "" {
		if o.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return o, fmt.Errorf("SOAK_SEED: want a whole number, got %q", v)
		}
	}
	if v := os.Getenv("SOAK_RATE"); v != "" {
		if o.Rate, err = strconv.ParseFloat(v, 64); err != nil || o.Rate < 0 {
			return o, fmt.Errorf("SOAK_RATE: want tasks per second, got %q", v)
		}
	}
	o.Faults = os.Getenv("SOAK_FAULTS") != "0"
	o.KeepDir = os.Getenv("SOAK_KEEP") == "1"
	o.Shared = os.Getenv("SOAK_SHARED") == "1"
	o.SharedFaults = os.Getenv("SOAK_SHARED_FAULTS") == "1"
	o.AMQPURL = envOr("A2ABUS_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/")
	o.RedisURL = envOr("A2ABUS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
	return o, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
