// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// realOptions are a very short run on the real servers under a private
// exchange and key prefix, removed when the test ends.
func realOptions(t testing.TB) Options {
	t.Helper()
	w := testworld.Real(t) // a private exchange and key prefix, removed at the end
	return Options{AMQPURL: w.AMQPURL, RedisURL: w.RedisURL, Exchange: w.Exchange, KeyPrefix: w.KeyPrefix,
		Requests: 5, Warmup: 2, Count: 24, Rounds: 2, InFlight: 4}
}

// expectNoQueues fails t for each of queues that still exists on the broker
// at amqpURL (a passive declare that is not NOT_FOUND).
func expectNoQueues(t *testing.T, amqpURL string, queues ...string) {
	t.Helper()
	conn, err := amqp.Dial(amqpURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range queues {
		ch, err := conn.Channel()
		if err != nil {
			t.Fatal(err)
		}
		_, err = ch.QueueDeclarePassive(q, true, false, false, false, nil)
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound {
			t.Errorf("queue %q still exists (passive declare: %v)", q, err)
			_ = ch.Close()
		}
	}
}

func TestRunMeasuresBothChainsAndCleansUp(t *testing.T) {
	o := realOptions(t)
	var progress bytes.Buffer
	o.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	for name, c := range map[string]ChainResult{"raw": rep.Raw, "project": rep.Project} {
		if c.LatencySamples != 10 || c.LatencyP50Ms <= 0 || c.LatencyP99Ms < c.LatencyP50Ms ||
			c.ThroughputCalls != 48 || c.Throughput <= 0 || len(c.PerRound) != 2 {
			t.Errorf("%s figures: %+v", name, c)
		}
	}
	if rep.LatencyP50Ratio <= 0 || rep.ThroughputRatio <= 0 || rep.BodyBytes.Request == 0 || rep.BodyBytes.Notification == 0 {
		t.Errorf("report: %+v", rep)
	}
	// Interleaved: the second round starts with the project chain.
	lines := strings.Split(progress.String(), "\n")
	if len(lines) < 5 || !strings.Contains(lines[0], "round 1/2: raw latency") || !strings.Contains(lines[4], "round 2/2: a2abus latency") {
		t.Errorf("progress:\n%s", progress.String())
	}

	// Nothing is left: no queue of the run, no key under the prefix.
	expectNoQueues(t, o.AMQPURL, append(rawQueues(rep.RunID), "agent.task.BenchEcho"+rep.RunID, "agent.response.BenchCaller"+rep.RunID)...)
	opt, err := goredis.ParseURL(o.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	keys, _, err := rdb.Scan(ctx, 0, o.KeyPrefix+"*", 10000).Result()
	if err != nil || len(keys) != 0 {
		t.Errorf("keys left under %q: %v (%v)", o.KeyPrefix, keys, err)
	}
}

func TestRunUnreachableServersIsAClearError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Run(ctx, Options{AMQPURL: "amqp://guest:s3cret@127.0.0.1:1/", RedisURL: "redis://127.0.0.1:1/0"})
	if err == nil || !strings.Contains(err.Error(), "RabbitMQ") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("unreachable RabbitMQ: %v", err)
	}
	amqpURL := testenv.AMQPURL(t)
	_, err = Run(ctx, Options{AMQPURL: amqpURL, RedisURL: "redis://127.0.0.1:1/0"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("unreachable Redis: %v", err)
	}
}

func TestRunReportMarshalsToOneObject(t *testing.T) {
	o := realOptions(t)
	o.Rounds, o.Count, o.Duration = 1, 0, 100*time.Millisecond
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.NewEncoder(&out).Encode(rep); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var m map[string]any
	if err := dec.Decode(&m); err != nil || dec.More() {
		t.Fatalf("not exactly one JSON object: %v\n%s", err, out.String())
	}
	if m["throughputSecondsPerRound"] != 0.1 || m["latencyP50Ratio"] == nil || m["throughputRatio"] == nil {
		t.Fatalf("JSON: %s", out.String())
	}
}
