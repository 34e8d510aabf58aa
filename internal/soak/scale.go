// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// ScaleOptions configures a scale measurement (Scale).
type ScaleOptions struct {
	// Replicas are the agent replica counts measured, e.g. 1, 3, 10.
	Replicas []int
	// Requests is how many calls, one at a time, give the latency figures.
	Requests int
	// InFlight calls run at once during the throughput phase, which lasts Duration.
	InFlight int
	Duration time.Duration
	// Work is how long the agent's skill works on each task (a model's call, say).
	Work time.Duration
	// Concurrency is each agent replica's agent.concurrency.
	Concurrency int
}

// Servers are the servers a measurement runs on.
type Servers struct {
	// Name labels the figures: single (one node, classic queues) or cluster-<redis>.
	Name string
	// AMQPURLs are the broker nodes; replica i connects to node i (modulo).
	AMQPURLs []string
	// QueueType is the bus's queue type (classic or quorum).
	QueueType string
	// Redis sets the working memory of cfg.
	Redis func(cfg *config.Config)
}

// ScaleResult is one line of figures: a setup and a replica count.
type ScaleResult struct {
	Servers  string `json:"servers"`
	Replicas int    `json:"replicas"`
	// WorkMs is the skill's work per task; InFlight the calls at once in the throughput phase.
	WorkMs   float64 `json:"workMs"`
	InFlight int     `json:"inFlight"`
	// Latency of one call at a time, in milliseconds.
	P50Ms float64 `json:"p50Ms"`
	P90Ms float64 `json:"p90Ms"`
	P99Ms float64 `json:"p99Ms"`
	// Throughput is the calls completed per second at InFlight; Errors the calls that failed.
	Throughput float64 `json:"throughputPerSecond"`
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
}

// Scale measures the invoke chain on s for each replica count: an echo
// agent run by that many replicas (each its own node: bus connection and
// Redis client, spread over the broker nodes), one caller; the latency of
// Requests calls one at a time, then the throughput at InFlight for Duration.
func Scale(ctx context.Context, s Servers, o ScaleOptions, log *zap.Logger) ([]ScaleResult, error) {
	quiet := log.WithOptions(zap.IncreaseLevel(zap.WarnLevel)) // the nodes: only what goes wrong
	var out []ScaleResult
	for _, n := range o.Replicas {
		r, err := scaleOnce(ctx, s, o, n, quiet)
		if err != nil {
			return out, fmt.Errorf("soak: scale on %s with %d replicas: %w", s.Name, n, err)
		}
		log.Info("scale", zap.Any("figures", r))
		out = append(out, *r)
	}
	return out, nil
}

// scaleOnce measures one replica count.
func scaleOnce(ctx context.Context, s Servers, o ScaleOptions, replicas int, log *zap.Logger) (_ *ScaleResult, err error) {
	run := strconv.FormatInt(time.Now().UnixMilli()%1e8, 36)
	agentName, callerName := "ScaleEcho"+run, "ScaleCaller"+run
	cfgFor := func(i int) *config.Config {
		c := config.Default()
		c.Bus.URL, c.Bus.QueueType, c.Bus.Exchange = s.AMQPURLs[i%len(s.AMQPURLs)], s.QueueType, "scale-"+run
		s.Redis(c)
		c.Redis.KeyPrefix = "scale:" + run + ":"
		c.Agent.Concurrency, c.Limits.MaxInFlight = o.Concurrency, 0
		c.Directory.WellKnownFile, c.Directory.KnownAgentsFile = "", ""
		c.Ops = config.OpsConfig{}
		return c
	}
	var hosts []*node.Host
	defer func() {
		for _, h := range slices.Backward(hosts) {
			err = errors.Join(err, h.Close())
		}
	}()
	card := a2a.AgentCard{Name: agentName, Version: "scale"}
	work := func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
		if o.Work > 0 {
			timer := time.NewTimer(o.Work)
			defer timer.Stop()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-timer.C:
			}
		}
		return agent.TextResult(t.Text()), nil
	}
	for i := range replicas {
		n, err := node.Open(ctx, cfgFor(i), fmt.Sprintf("scale-agent-%d", i), log)
		if err != nil {
			return nil, fmt.Errorf("open agent replica %d: %w", i, err)
		}
		h := node.NewHost(n)
		hosts = append(hosts, h)
		if _, err := h.Agent(card, func(a *agent.Agent) error { return a.Handle("echo", work) }); err != nil {
			return nil, err
		}
		h.Start(context.WithoutCancel(ctx))
	}
	cn, err := node.Open(ctx, cfgFor(replicas), "scale-caller", log) // the caller on the next node
	if err != nil {
		return nil, fmt.Errorf("open the caller: %w", err)
	}
	ch := node.NewHost(cn)
	hosts = append(hosts, ch)
	c, err := ch.Caller(callerName)
	if err != nil {
		return nil, err
	}
	ch.Start(context.WithoutCancel(ctx))

	call := func(ctx context.Context, i int) error {
		out, err := c.Call(ctx, caller.Request{Target: agentName, Skill: "echo", Text: "scale " + strconv.Itoa(i),
			SessionID: fmt.Sprintf("scale-%s-%d", run, i), Timeout: time.Minute}, nil)
		if err != nil {
			return err
		}
		return out.Err()
	}
	// The first call waits for the caller to learn the agent (its announcement).
	if err := waitFor(ctx, time.Minute, "the agent known to the caller", func(ctx context.Context) error { return call(ctx, -1) }); err != nil {
		return nil, err
	}
	r := &ScaleResult{Servers: s.Name, Replicas: replicas, WorkMs: float64(o.Work.Milliseconds()), InFlight: o.InFlight}
	lat := make([]time.Duration, 0, o.Requests)
	for i := range o.Requests {
		start := time.Now()
		if err := call(ctx, i); err != nil {
			r.Errors++
			continue
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	r.P50Ms, r.P90Ms, r.P99Ms = quantileMs(lat, 0.50), quantileMs(lat, 0.90), quantileMs(lat, 0.99)

	var done, failed atomic.Int64
	var next atomic.Int64
	next.Store(int64(o.Requests))
	tctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range o.InFlight {
		wg.Go(func() {
			for tctx.Err() == nil {
				if err := call(ctx, int(next.Add(1))); err != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	r.Calls, r.Errors = int(done.Load()), r.Errors+int(failed.Load())
	r.Throughput = math.Round(float64(done.Load())/time.Since(start).Seconds()*10) / 10
	return r, nil
}

// quantileMs is the q quantile of sorted durations, in milliseconds to 0.1.
func quantileMs(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	d := sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
	return math.Round(float64(d.Microseconds())/100) / 10
}
