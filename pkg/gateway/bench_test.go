// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/gateway"
	"github.com/a2abus/a2abus/pkg/ops/prom"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// BenchmarkGateway measures the gateway against the bus it fronts, on the
// real RabbitMQ and Redis, in one run (go test -bench Gateway):
//
//   - "direct call" and "blocking send": one call at a time to the echo
//     skill, through a caller (caller.Call) and through the gateway
//     (a2aclient's blocking SendMessage over JSON-RPC); each reports its
//     p50 latency (the difference is what the gateway adds: HTTP, JSON-RPC,
//     the principal's list);
//   - "non-blocking send vs invoke": 32 senders at once, caller.Invoke
//     and SendMessage with returnImmediately in alternating rounds; it
//     reports both throughputs and their ratio, measured under the same
//     load (paired);
//   - "streams": 1000 event streams open at once on one gateway, each on a
//     task waiting in its agent's queue; it reports the memory each stream
//     holds (heap and stacks of this process, which runs the gateway and
//     the raw connections of the clients).
//
// The process runs at the garbage collector's target the a2abus binaries
// run with (cliutil.DefaultGCPercent unless GOGC is set), as a deployed
// gateway and caller do; go test's default would be Go's 100.
//
// The figures are reported, never asserted (docs/a2a-http.md has a run).
func BenchmarkGateway(b *testing.B) {
	tuneGCAsDeployed(b)
	w := testworld.Real(b)
	reg := prom.NewRegistry()
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
	// The senders post a ready-made request, each on its own kept-alive
	// connection, as a load generator does: what is measured is the
	// gateway, not a client's encoding or transport.
	nonBlocking := rpc("SendMessage", map[string]any{"message": sendParams("bench", "", nil)["message"],
		"metadata": map[string]any{gateway.MetaSkill: sample.SkillEcho}, "configuration": map[string]any{"returnImmediately": true}})
	b.Run("non-blocking send vs invoke", func(b *testing.B) {
		raw := &rawClient{addr: strings.TrimPrefix(m.url, "http://"), req: rawPost(m.sample, nonBlocking), conns: make(chan *rawConn, senders)}
		defer raw.close()
		invoke := &sender{by: direct, op: func() (string, error) { inv, err := direct.Invoke(ctx, echo); return inv.TaskID, err }}
		send := &sender{by: m.callers[m.alice], op: raw.post, id: sentTaskID}
		paired(b, &raw.dials, invoke, send)
	})
	b.Run("streams", func(b *testing.B) { streams(b, m, idle, reg) })
}

// tuneGCAsDeployed sets the garbage collector's target the a2abus
// binaries set (cliutil.TuneGC) until b ends.
func tuneGCAsDeployed(b *testing.B) {
	prev := debug.SetGCPercent(-1) // read it: -1 for a moment, then back
	debug.SetGCPercent(prev)
	b.Cleanup(func() { debug.SetGCPercent(prev) })
	cliutil.TuneGC()
}

// rawPost is the HTTP/1.1 request that POSTs body to agent's JSON-RPC
// endpoint as Alice.
func rawPost(agent, body string) []byte {
	return fmt.Appendf(nil, "POST %s/%s HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		gateway.AgentsPath, agent, aliceKey, len(body), body)
}

// rawClient sends one ready-made request over kept-alive connections,
// one per sender at most, as a load generator does (a client transport's
// goroutines and copies would be charged to the gateway's CPU here).
type rawClient struct {
	addr  string
	req   []byte
	conns chan *rawConn // idle connections
	dials atomic.Int64  // connections opened: one per sender when kept alive
}

type rawConn struct {
	net.Conn
	r *bufio.Reader
}

// post sends the request and returns the answer, a JSON-RPC result.
func (c *rawClient) post() (string, error) {
	var conn *rawConn
	select {
	case conn = <-c.conns:
	default:
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			return "", err
		}
		c.dials.Add(1)
		conn = &rawConn{Conn: nc, r: bufio.NewReader(nc)}
	}
	if _, err := conn.Write(c.req); err != nil {
		_ = conn.Close()
		return "", err
	}
	resp, err := http.ReadResponse(conn.r, nil)
	if err != nil {
		_ = conn.Close()
		return "", err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.Close {
		_ = conn.Close()
	} else {
		c.conns <- conn
	}
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		return "", fmt.Errorf("HTTP %d %s: %v", resp.StatusCode, b, err)
	}
	return string(b), nil
}

func (c *rawClient) close() {
	for {
		select {
		case conn := <-c.conns:
			_ = conn.Close()
		default:
			return
		}
	}
}

// sentTaskID is the task id of a SendMessage answer.
func sentTaskID(answer string) (string, error) {
	var r struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &r); err != nil || r.Result.Task.ID == "" {
		return "", fmt.Errorf("no task in the answer %s: %v", answer, err)
	}
	return r.Result.Task.ID, nil
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

// senders is how many send at once in the throughput comparison (on 2
// cores), roundOps how many tasks each side sends per round.
const (
	senders  = 32
	roundOps = 500
)

// sender is one side of the throughput comparison: op sends a task, by
// is the caller whose task it is, id reads the task id from what op
// returned (nil: it is the id). It sums its rounds.
type sender struct {
	op      func() (string, error)
	by      *caller.Caller
	id      func(string) (string, error)
	n       int
	elapsed time.Duration
	cpu     time.Duration
}

// paired measures direct invokes against non-blocking sends, b.N of
// each, senders at once, in alternating rounds of roundOps so that both
// see the same load on a shared machine. Each round starts with the agent
// idle: the tasks of the round before are waited for outside the timer
// (so neither side pays for the other's backlog). It reports both
// throughputs, their ratio (the target: ≥ 0.8), each one's CPU time of
// this process per task, and the connections the HTTP client dialled.
func paired(b *testing.B, dials *atomic.Int64, invoke, send *sender) {
	for _, s := range []*sender{invoke, send} { // warm up: queues declared, connections open
		s.round(b, senders)
		s.n, s.elapsed, s.cpu = 0, 0, 0
	}
	dialled := dials.Load()
	b.ResetTimer()
	for done := 0; done < b.N; done += roundOps {
		n := min(roundOps, b.N-done)
		invoke.round(b, n)
		send.round(b, n)
	}
	b.StopTimer()
	rate := func(s *sender) float64 { return float64(s.n) / s.elapsed.Seconds() }
	b.ReportMetric(rate(invoke), "invoke-ops/s")
	b.ReportMetric(rate(send), "send-ops/s")
	b.ReportMetric(rate(send)/rate(invoke), "send/invoke")
	b.ReportMetric(float64(invoke.cpu.Microseconds())/float64(invoke.n), "invoke-cpu-µs")
	b.ReportMetric(float64(send.cpu.Microseconds())/float64(send.n), "send-cpu-µs")
	b.ReportMetric(float64(dials.Load()-dialled), "dials")
}

// round sends n tasks from senders goroutines, adds the time and CPU it
// took, then (timer stopped) waits for the tasks' outcomes.
func (s *sender) round(b *testing.B, n int) {
	out := make([]string, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	start, cpu := time.Now(), processCPU()
	for range senders {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				var err error
				if out[i], err = s.op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	s.n, s.elapsed, s.cpu = s.n+n, s.elapsed+time.Since(start), s.cpu+processCPU()-cpu
	b.StopTimer()
	defer b.StartTimer()
	if b.Failed() {
		b.FailNow()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	next.Store(0)
	for range senders {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				id, err := out[i], error(nil)
				if s.id != nil {
					id, err = s.id(id)
				}
				if err == nil {
					_, err = s.by.Wait(ctx, id, nil)
				}
				if err != nil {
					b.Errorf("wait for task %d of the round: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
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
func streams(b *testing.B, m *mesh, idle string, reg *prom.Registry) {
	req := rawPost(idle, rpc("SendStreamingMessage", sendParams("wait", "wait", nil)))
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
			if _, err := c.Write(req); err != nil {
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
func gaugeOf(tb testing.TB, reg *prom.Registry, name string) float64 {
	tb.Helper()
	families, err := promtest.Gather(reg)
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
