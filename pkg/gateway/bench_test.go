// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/gateway"
)

// BenchmarkGateway measures the gateway against the bus it fronts, on the
// real RabbitMQ and Redis, in one run (go test -bench Gateway):
//
//   - "direct call" and "blocking send": one call at a time to the echo
//     skill, through a caller (caller.Call) and through the gateway
//     (a2aclient's blocking SendMessage over JSON-RPC); each reports its
//     p50 latency (the difference is what the gateway adds: HTTP, JSON-RPC,
//     the principal's list);
//   - "direct invoke" and "non-blocking send": 32 senders at once,
//     caller.Invoke and SendMessage with returnImmediately; ns/op is the
//     inverse of the throughput;
//   - "streams": 1000 event streams open at once on one gateway, each on a
//     task waiting in its agent's queue; it reports the memory each stream
//     holds (heap and stacks of this process, which runs the gateway and
//     the raw connections of the clients).
//
// The figures are reported, never asserted (docs/a2a-http.md has a run).
func BenchmarkGateway(b *testing.B) {
	w := testworld.Real(b)
	reg := prometheus.NewRegistry()
	idle := w.N("IdleAgent") // well-known, never running: its tasks wait in its queue
	m := newMesh(b, w, func(o *gateway.Options) {
		o.Limits.MaxConnections = 4096
		o.MaxStreams = 4096
		o.Registerer = reg
	}, func(c *config.Config) {
		c.Caller.MaxTimeout = 10 * time.Minute
		c.Directory.WellKnownFile = wellKnown(b, idle, "wait")
	})
	direct := m.callers[m.bob]
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, Proxy: nil}, Timeout: time.Minute}
	hc.Transport = authRoundTripper{next: hc.Transport, key: aliceKey}
	card, err := agentcard.NewResolver(hc).Resolve(context.Background(), m.agentURL(m.sample))
	if err != nil {
		b.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	echo := caller.Request{Target: m.sample, Skill: sample.SkillEcho, Text: "bench"}

	b.Run("direct call", func(b *testing.B) {
		latencies(b, func() error {
			out, err := direct.Call(ctx, echo, nil)
			if err == nil && out.Result.Failed() {
				err = out.Err()
			}
			return err
		})
	})
	b.Run("blocking send", func(b *testing.B) {
		latencies(b, func() error {
			res, err := client.SendMessage(ctx, send("bench", sample.SkillEcho))
			if err == nil && res.(*spec.Task).Status.State != spec.TaskStateCompleted {
				err = fmt.Errorf("task %s", res.(*spec.Task).Status.State)
			}
			return err
		})
	})
	b.Run("direct invoke", func(b *testing.B) {
		parallel(b, func() error { _, err := direct.Invoke(ctx, echo); return err })
	})
	// The senders post a ready-made JSON-RPC body, as a load generator does:
	// what is measured is the gateway, not a client's encoding.
	nonBlocking := []byte(rpc("SendMessage", map[string]any{"message": sendParams("bench", "", nil)["message"],
		"metadata": map[string]any{gateway.MetaSkill: sample.SkillEcho}, "configuration": map[string]any{"returnImmediately": true}}))
	b.Run("non-blocking send", func(b *testing.B) {
		parallel(b, func() error { return postRaw(hc, m.agentURL(m.sample), nonBlocking) })
	})
	b.Run("streams", func(b *testing.B) { streams(b, m, idle, reg) })
}

// postRaw POSTs a JSON-RPC body and checks the answer is a result.
func postRaw(hc *http.Client, url string, body []byte) error {
	resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		return fmt.Errorf("HTTP %d %s: %v", resp.StatusCode, b, err)
	}
	return nil
}

// authRoundTripper sends key as a bearer token.
type authRoundTripper struct {
	next http.RoundTripper
	key  string
}

func (a authRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.key)
	return a.next.RoundTrip(r)
}

// latencies runs op b.N times, one at a time, and reports the p50 and p99.
func latencies(b *testing.B, op func() error) {
	if err := op(); err != nil { // warm up: queues declared, connections open
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// parallel runs op b.N times from 32 goroutines and reports ops/s and
// the CPU time this process spent per op.
func parallel(b *testing.B, op func() error) {
	if err := op(); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(16) // 32 senders on 2 cores
	start, cpu := time.Now(), processCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// streamCount is how many streams the streams benchmark holds open.
const streamCount = 1000

// streams opens streamCount event streams on the gateway, each on a task
// of an agent that does not run (idle, well-known: its tasks wait in its
// queue), reads each one's first event, and reports the memory the open
// streams hold, per stream. Each round is the whole figure.
func streams(b *testing.B, m *mesh, idle string, reg *prometheus.Registry) {
	body := rpc("SendStreamingMessage", sendParams("wait", "wait", nil))
	req := fmt.Sprintf("POST /agents/%s HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		idle, aliceKey, len(body), body)
	addr := strings.TrimPrefix(m.url, "http://")
	for b.Loop() {
		before := inUse()
		conns := make([]net.Conn, 0, streamCount)
		for range streamCount {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			if _, err := c.Write([]byte(req)); err != nil {
				b.Fatal(err)
			}
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					b.Fatalf("stream %d: %v", len(conns), err)
				}
				if strings.HasPrefix(line, "data: ") {
					break // the task: the stream is open
				}
			}
		}
		after := inUse()
		b.ReportMetric(float64(after-before)/streamCount, "bytes/stream")
		b.ReportMetric(gaugeOf(b, reg, "a2abus_gateway_streams"), "streams")
		for _, c := range conns {
			_ = c.Close()
		}
	}
}

// inUse is the heap and stack memory in use, after a collection.
func inUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse + ms.StackInuse)
}

// wellKnown writes a well-known agents file of one agent, name, with the
// skill id, and returns its path.
func wellKnown(tb testing.TB, name, skill string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "well-known.json")
	data := fmt.Sprintf(`[{"agentName": %q, "description": "never runs", "version": "1", "skills": [{"id": %q, "name": %q, "description": "waits"}]}]`, name, skill, skill)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// gaugeOf is the value of the gauge name in reg.
func gaugeOf(tb testing.TB, reg *prometheus.Registry, name string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return 0
}
