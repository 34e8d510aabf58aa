// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
)

// holdEnv makes the test binary a replica that takes slots and holds them
// until it is killed (TestKilledReplicaFreesItsSlots): "<redis URL> <key
// prefix> <slots> <lease ms> <finished>", finished 1 to finish the calls,
// so that their slots stay reserved unused (idle for an hour before they
// would go back).
const holdEnv = "A2ABUS_TEST_REDISLIMITS_HOLD"

func TestMain(m *testing.M) {
	if args := os.Getenv(holdEnv); args != "" {
		os.Exit(holdSlots(args))
	}
	os.Exit(m.Run())
}

// holdSlots is the replica that is killed: it admits n calls (and
// finishes them when finished), says "held" and keeps renewing their slots
// until it dies.
func holdSlots(args string) int {
	var url, keyPrefix string
	var n, finished int
	var leaseMS int64
	if _, err := fmt.Sscan(args, &url, &keyPrefix, &n, &leaseMS, &finished); err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 2
	}
	opt, err := goredis.ParseURL(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 2
	}
	r, err := openReplicaWith(redislimits.Options{Client: goredis.NewClient(opt), KeyPrefix: keyPrefix,
		Lease: time.Duration(leaseMS) * time.Millisecond, IdleReturn: time.Hour}, guard.Limits{MaxInFlight: n})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hold:", err)
		return 2
	}
	var tickets []*guard.Ticket
	for range n {
		tk, err := r.guard.Admit("Cli", "ResearchAgent")
		if err != nil {
			fmt.Fprintln(os.Stderr, "hold: admit:", err)
			return 1
		}
		tickets = append(tickets, tk)
	}
	if finished == 1 {
		for _, tk := range tickets {
			tk.Done("")
		}
	}
	fmt.Println("held")
	select {} // until killed
}

// slotScores returns the lease ends (Unix ms) of caller's slots.
func slotScores(t *testing.T, c goredis.UniversalClient, keyPrefix, caller string) []float64 {
	t.Helper()
	k, err := memory.InFlightSlotsKey(caller)
	if err != nil {
		t.Fatal(err)
	}
	zs, err := c.ZRangeWithScores(context.Background(), keyPrefix+"limits:"+k, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	scores := make([]float64, len(zs))
	for i, z := range zs {
		scores[i] = z.Score
	}
	return scores
}

// TestKilledReplicaFreesItsSlots: a replica process holding every slot of
// a caller, for calls running or reserved ahead unused, renews them while
// it lives, and once it is killed (SIGKILL: nothing released) its slots
// end within one lease and another replica takes them.
func TestKilledReplicaFreesItsSlots(t *testing.T) {
	t.Run("calls running", func(t *testing.T) { killedReplicaFreesItsSlots(t, 0) })
	t.Run("reserved unused", func(t *testing.T) { killedReplicaFreesItsSlots(t, 1) })
}

func killedReplicaFreesItsSlots(t *testing.T, finished int) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	p := prefix(t, c)
	const n, lease = 3, time.Second
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"="+fmt.Sprint(url, " ", p, " ", n, " ", lease.Milliseconds(), " ", finished))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	held := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		held <- strings.TrimSpace(line)
	}()
	select {
	case line := <-held:
		if line != "held" {
			t.Fatalf("the replica process said %q, want held", line)
		}
	case <-time.After(time.Minute):
		t.Fatal("the replica process did not take its slots within a minute")
	}

	other := newReplica(t, url, p, guard.Limits{MaxInFlight: n}, lease, nil)
	if _, err := other.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
		t.Fatalf("while the replica process holds every slot: %v, want BUSY", err)
	}
	first := slotScores(t, c, p, "Cli")
	if len(first) != n {
		t.Fatalf("%d slots in Redis, want %d", len(first), n)
	}
	testenv.Eventually(t, "the living replica renews its slots' leases", func() bool {
		now := slotScores(t, c, p, "Cli")
		return len(now) == n && now[0] > first[n-1]
	})

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killedAt, err := c.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slotScores(t, c, p, "Cli") {
		if end := time.UnixMilli(int64(s)); end.After(killedAt.Add(lease)) {
			t.Fatalf("a slot of the killed replica lasts until %s, past one lease (%s) after the kill (%s)", end, lease, killedAt)
		}
	}
	testenv.Eventually(t, "another replica takes the killed one's slots", func() bool {
		_, err := other.guard.Admit("Cli", "ResearchAgent")
		return err == nil
	})
	for i := 1; i < n; i++ {
		if _, err := other.guard.Admit("Cli", "ResearchAgent"); err != nil {
			t.Fatalf("slot %d of the killed replica: %v", i+1, err)
		}
	}
}

// TestRedisDownFallsBackToPerProcessLimits: with Redis unreachable the
// replica keeps its own limits (said once in the log), and once Redis is
// back the shared limit holds again.
func TestRedisDownFallsBackToPerProcessLimits(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	proxy, proxied := testenv.ProxyURL(t, url)
	limits := guard.Limits{MaxInFlight: 2}
	peer := newReplica(t, url, p, limits, 0, nil)
	for range 2 {
		if _, err := peer.guard.Admit("Cli", "ResearchAgent"); err != nil {
			t.Fatal(err)
		}
	}
	log, logs := observed()
	r := newReplica(t, proxied, p, limits, 0, log)
	if _, err := r.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy || !strings.Contains(err.Error(), "across its processes") {
		t.Fatalf("with the peer holding the shared limit: %v, want BUSY across its processes", err)
	}

	proxy.Down()
	var local []*guard.Ticket
	for i := range 2 {
		tk, err := r.guard.Admit("Cli", "ResearchAgent")
		if err != nil {
			t.Fatalf("call %d with Redis down: %v, want admitted by the per-process limit", i+1, err)
		}
		local = append(local, tk)
	}
	if _, err := r.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy || strings.Contains(err.Error(), "across") {
		t.Fatalf("a third call with Redis down: %v, want BUSY by the per-process limit", err)
	}
	if r.guard.SharedUp() {
		t.Error("SharedUp with Redis down")
	}
	if n := logs.FilterMessageSnippet("shared limits unreachable").Len(); n != 1 {
		t.Errorf("the fallback was logged %d times, want once", n)
	}
	for _, tk := range local {
		tk.Done("")
	}

	proxy.Up()
	testenv.Eventually(t, "the shared limit holds again once Redis is back", func() bool {
		tk, err := r.guard.Admit("Cli", "ResearchAgent")
		if err == nil {
			tk.Done("") // admitted by the per-process limit before the retry
			return false
		}
		return code(err) == a2a.CodeBusy && strings.Contains(err.Error(), "across its processes")
	})
	if !r.guard.SharedUp() || logs.FilterMessageSnippet("shared limits answer again").Len() != 1 {
		t.Errorf("SharedUp %v, recovery logged %d times; want true, once", r.guard.SharedUp(), logs.FilterMessageSnippet("answer again").Len())
	}
}

// TestUnreachableRedisKeepsPerProcessLimits: a replica whose Redis refuses
// connections from the start admits up to its own limits, and no more.
func TestUnreachableRedisKeepsPerProcessLimits(t *testing.T) {
	refused := "redis://" + closedPort(t) + "/0"
	r := newReplica(t, refused, "a2abus-test-refused:", guard.Limits{MaxInFlight: 2, Rate: 1, Burst: 1, BreakerFailures: 1, BreakerCooldown: time.Minute}, 0, nil)
	tk, err := r.guard.Admit("Cli", "ResearchAgent")
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	if _, err := r.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeRateLimited {
		t.Fatalf("second call: %v, want RATE_LIMITED by the per-process rate", err)
	}
	tk.Done(a2a.CodeTimeout)
	if _, err := r.guard.Admit("Cli", "Other"); err != nil {
		t.Fatalf("a call to another target: %v", err)
	}
	if _, err := r.guard.Admit("Cli2", "ResearchAgent"); code(err) != a2a.CodeCircuitOpen {
		t.Fatalf("after a failure: %v, want CIRCUIT_OPEN by the per-process breaker", err)
	}
	if _, err := r.guard.Admit("Cli", "Third"); err != nil {
		t.Fatalf("a second call in flight: %v", err)
	}
	if _, err := r.guard.Admit("Cli", "Fourth"); code(err) != a2a.CodeBusy {
		t.Fatalf("a third call in flight: %v, want BUSY by the per-process limit", err)
	}
}

// closedPort returns a loopback host:port that refuses connections.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestRedisDownSeenWithoutACall: a replica that admits from the slot it
// reserved and its copy of the circuit makes no round trip, yet it learns
// that Redis is down from its background work (the circuits' refresh), so
// that its calls keep only the per-process limits until Redis answers.
func TestRedisDownSeenWithoutACall(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	proxy, proxied := testenv.ProxyURL(t, url)
	log, logs := observed()
	r := newReplica(t, proxied, p, guard.DefaultLimits(), 0, log)
	tk, err := r.guard.Admit("Cli", "ResearchAgent")
	if err != nil {
		t.Fatal(err)
	}
	tk.Done("")
	proxy.Down()
	testenv.Eventually(t, "the replica sees Redis down without a call", func() bool { return !r.guard.SharedUp() })
	if n := logs.FilterMessageSnippet("shared limits unreachable").Len(); n != 1 {
		t.Errorf("the fallback was logged %d times, want once", n)
	}
	proxy.Up()
	testenv.Eventually(t, "the replica sees Redis back", r.guard.SharedUp)
}
