// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/soak"
)

// scale is `soak scale`: the invoke chain's latency and throughput with
// SCALE_REPLICAS agent replicas (1,3,10), first on a private broker and
// Redis (one node, classic queues), then, when SOAK_CLUSTER_* name one
// (scripts/cluster.sh run), on the cluster (quorum queues, Redis under
// Sentinel, replicas spread over the nodes): one JSON line per setup and
// count. SCALE_REQUESTS (200) calls one at a time give the latency,
// SCALE_IN_FLIGHT (32) calls at once for SCALE_DURATION (15s) the
// throughput; the skill works SCALE_WORK (20ms); agent.concurrency is
// SCALE_CONCURRENCY (8).
func scale(ctx context.Context) int {
	log := progressLog()
	defer func() { _ = log.Sync() }()
	o, err := scaleOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	print := func(rs []soak.ScaleResult) {
		for _, r := range rs {
			line, _ := json.Marshal(r)
			fmt.Println(string(line))
		}
	}
	dir, err := os.MkdirTemp("", "a2abus-scale-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	defer func() { _ = os.RemoveAll(dir) }()
	single := func() ([]soak.ScaleResult, error) {
		rd, err := soak.StartRedis(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer rd.Stop()
		b, err := soak.StartBroker(ctx, dir, log)
		if err != nil {
			return nil, err
		}
		defer b.Stop(context.WithoutCancel(ctx))
		return soak.Scale(ctx, soak.Servers{Name: "single", AMQPURLs: []string{b.URL}, QueueType: "classic",
			Redis: func(c *config.Config) { c.Redis.URL = rd.URL }}, o, log.Named("single"))
	}
	rs, err := single()
	print(rs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	cl, err := soak.ClusterFromEnv(soak.RedisSentinel, log)
	if err != nil || cl == nil {
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			return 2
		}
		return 0
	}
	urls := make([]string, len(cl.Nodes))
	for i, n := range cl.Nodes {
		urls[i] = n.URL
	}
	rs, err = soak.Scale(ctx, soak.Servers{Name: "cluster-sentinel", AMQPURLs: urls, QueueType: "quorum",
		Redis: func(c *config.Config) { c.Redis.URL, c.Redis.Addrs, c.Redis.MasterName = "", cl.Sentinels, cl.Master }}, o, log.Named("cluster"))
	print(rs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	return 0
}

// scaleOptions reads the SCALE_* knobs.
func scaleOptions() (soak.ScaleOptions, error) {
	o := soak.ScaleOptions{Requests: 200, InFlight: 32, Duration: 15 * time.Second, Work: 20 * time.Millisecond, Concurrency: 8}
	for _, f := range strings.Split(envOr("SCALE_REPLICAS", "1,3,10"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return o, fmt.Errorf("SCALE_REPLICAS: want counts such as 1,3,10, got %q", f)
		}
		o.Replicas = append(o.Replicas, n)
	}
	for name, dst := range map[string]*int{"SCALE_REQUESTS": &o.Requests, "SCALE_IN_FLIGHT": &o.InFlight, "SCALE_CONCURRENCY": &o.Concurrency} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, fmt.Errorf("%s: want a positive whole number, got %q", name, v)
			}
			*dst = n
		}
	}
	for name, dst := range map[string]*time.Duration{"SCALE_DURATION": &o.Duration, "SCALE_WORK": &o.Work} {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return o, fmt.Errorf("%s: want a duration such as 15s, got %q", name, v)
			}
			*dst = d
		}
	}
	return o, nil
}
