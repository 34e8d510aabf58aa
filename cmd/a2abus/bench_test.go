// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// TestBenchJSON runs a very short bench on the real servers, under a
// private exchange and key prefix, and checks stdout is exactly one JSON
// object with the ratios and both chains' figures. It never looks at speed.
func TestBenchJSON(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t) // a private exchange and key prefix, removed at the end
	amqpURL, redisURL := w.AMQPURL, w.RedisURL
	t.Setenv("A2ABUS_BUS_EXCHANGE", w.Exchange)
	t.Setenv("A2ABUS_REDIS_KEY_PREFIX", w.KeyPrefix)
	args := []string{"bench", "--json", "--requests", "3", "--warmup", "1", "--count", "8", "--rounds", "1", "--in-flight", "4", "--redis-url", redisURL}
	// Without bus.url the bench says which server it uses; that is the test's one when it is the default.
	if amqpURL != testenv.DefaultAMQPURL {
		args = append(args, "--amqp-url", amqpURL)
	}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if amqpURL == testenv.DefaultAMQPURL && !strings.Contains(errOut, "bench: bus.url is not set; using amqp://guest:xxxxx@127.0.0.1:5672/") {
		t.Errorf("stderr does not say which RabbitMQ is used:\n%s", errOut)
	}
	dec := json.NewDecoder(bytes.NewBufferString(out))
	var rep map[string]any
	if err := dec.Decode(&rep); err != nil || dec.More() {
		t.Fatalf("stdout is not exactly one JSON object (%v):\n%s", err, out)
	}
	for _, k := range []string{"latencyP50Ratio", "latencyP99Ratio", "throughputRatio", "raw", "project", "bodyBytes"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("JSON lacks %q:\n%s", k, out)
		}
	}
	if s, _ := rep["settings"].(map[string]any); s["inFlight"] != 4.0 || s["agentConcurrency"] != 4.0 || s["responseConcurrency"] == nil {
		t.Errorf("settings: %v", rep["settings"])
	}
	for _, chain := range []string{"raw", "project"} {
		c, _ := rep[chain].(map[string]any)
		if c["latencySamples"] != 3.0 || c["throughputCalls"] != 8.0 {
			t.Errorf("%s figures: %v", chain, c)
		}
	}
}

func TestBenchBadFlags(t *testing.T) {
	isolate(t, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--requests", "0"}, "--requests must be at least 1, got 0"},
		{[]string{"bench", "--rounds", "-2"}, "--rounds must be at least 1, got -2"},
		{[]string{"bench", "--in-flight", "2000"}, "in-flight must be between 1 and 1000, got 2000"},
		{[]string{"bench", "--duration", "-1s"}, "duration must not be negative"},
		{[]string{"bench", "extra"}, "unknown command"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code == 0 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}

func TestBenchRejectsRedisItCannotUse(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_REDIS_ADDRS", "a:1,b:2")
	code, _, errOut := runCLI(t, "bench")
	if code == 0 || !strings.Contains(errOut, "redis.addrs (Sentinel or Cluster) is not supported") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
