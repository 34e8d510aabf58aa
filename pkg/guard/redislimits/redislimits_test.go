// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
)

// client returns a client of the test Redis at rawURL, as the working
// memory makes one (no retries), closed when t ends.
func client(t testing.TB, rawURL string) goredis.UniversalClient {
	t.Helper()
	opt, err := goredis.ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxRetries = -1
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second, time.Second
	c := goredis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// prefix returns a key prefix of the test's own, whose keys are deleted when it ends.
func prefix(t testing.TB, c goredis.UniversalClient) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	p := "a2abus-test-limits-" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		for _, pre := range []string{p, "rate:" + p} {
			_ = testworld.DeleteKeys(context.Background(), c.(*goredis.Client), pre)
		}
	})
	return p
}

// replica is one process of a caller: its own Redis client, shared limits and guard.
type replica struct {
	limits *redislimits.Limits
	guard  *guard.Guard
}

func newReplica(t testing.TB, rawURL, keyPrefix string, l guard.Limits, lease time.Duration, log *zap.Logger) replica {
	t.Helper()
	return newReplicaWith(t, rawURL, redislimits.Options{KeyPrefix: keyPrefix, Lease: lease, Logger: log}, l)
}

// newReplicaWith is newReplica with the shared limits' options (but the client).
func newReplicaWith(t testing.TB, rawURL string, opts redislimits.Options, l guard.Limits) replica {
	t.Helper()
	opts.Client = client(t, rawURL)
	r, err := openReplicaWith(opts, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.guard.Close() })
	return r
}

// openReplicaWith builds a replica's shared limits and guard from opts.
func openReplicaWith(opts redislimits.Options, l guard.Limits) (replica, error) {
	shared, err := redislimits.New(opts)
	if err != nil {
		return replica{}, err
	}
	g, err := guard.New(guard.Config{Limits: l, Shared: shared, SharedRetry: 50 * time.Millisecond, Logger: opts.Logger})
	if err != nil {
		return replica{}, err
	}
	return replica{limits: shared, guard: g}, nil
}

func code(err error) a2a.ErrorCode {
	var e *a2a.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestThreeReplicasStayUnderOneInFlightLimit: three processes of a caller,
// each allowed 4 calls in flight on its own, admit 4 together; a call that
// finishes on one frees a slot another takes.
func TestThreeReplicasStayUnderOneInFlightLimit(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	limits := guard.Limits{MaxInFlight: 4}
	var reps []replica
	for range 3 {
		reps = append(reps, newReplica(t, url, p, limits, 0, nil))
	}
	var (
		mu      sync.Mutex
		tickets []*guard.Ticket
		busy    int
		wg      sync.WaitGroup
	)
	for _, r := range reps {
		for range 4 { // each replica alone would admit all 4
			wg.Add(1)
			go func() {
				defer wg.Done()
				tk, err := r.guard.Admit("Cli", "ResearchAgent")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					tickets = append(tickets, tk)
				case code(err) == a2a.CodeBusy && strings.Contains(err.Error(), "across its processes"):
					busy++
				default:
					t.Errorf("Admit: %v, want a ticket or BUSY across its processes", err)
				}
			}()
		}
	}
	wg.Wait()
	if len(tickets) != 4 || busy != 8 {
		t.Fatalf("three replicas admitted %d calls and refused %d, want 4 and 8 (one limit of 4)", len(tickets), busy)
	}
	if _, err := reps[2].guard.Admit("cli", "Other"); code(err) != a2a.CodeBusy {
		t.Fatalf("a fifth call (caller spelled otherwise): %v, want BUSY", err)
	}
	tickets[0].Done("") // its slot goes back without a round trip on the way
	testenv.Eventually(t, "a replica takes the slot another freed", func() bool {
		tk, err := reps[2].guard.Admit("Cli", "ResearchAgent")
		if err != nil {
			return false
		}
		tickets[0] = tk
		return true
	})
	for _, r := range reps {
		if _, err := r.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
			t.Fatalf("with 4 in flight again: %v, want BUSY", err)
		}
	}
}

// TestThreeReplicasStayUnderOneRate: three processes each calling as fast
// as they can get, together, no more than the burst plus the rate times
// the time they took: a low rate taken a token at a time, and a high one
// whose tokens the processes take ahead.
func TestThreeReplicasStayUnderOneRate(t *testing.T) {
	t.Run("low", func(t *testing.T) { threeReplicasStayUnderOneRate(t, 2, 3, 10) })
	t.Run("high", func(t *testing.T) { threeReplicasStayUnderOneRate(t, 100, 20, 60) })
}

func threeReplicasStayUnderOneRate(t *testing.T, rate float64, burst, calls int) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	limits := guard.Limits{Rate: rate, Burst: burst}
	var reps []replica
	for range 3 {
		reps = append(reps, newReplica(t, url, p, limits, 0, nil))
	}
	var (
		mu               sync.Mutex
		admitted, shared int
		wg               sync.WaitGroup
	)
	start := time.Now()
	for _, r := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls { // each replica alone would admit its burst
				_, err := r.guard.Admit("Cli", "ResearchAgent")
				mu.Lock()
				switch {
				case err == nil:
					admitted++
				case code(err) == a2a.CodeRateLimited: // by the shared rate, or by the replica's own once its burst is gone
					if strings.Contains(err.Error(), "across the caller's processes") {
						shared++
					}
				default:
					t.Errorf("Admit: %v, want a ticket or RATE_LIMITED", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	allowed := burst + int(rate*elapsed.Seconds()) + 1
	// A replica's last take may have taken tokens ahead it never used: at
	// most the most it asks for, less the one it used.
	ahead := max(1, min(burst/4, int(math.Ceil(rate*redislimits.DefaultTokenReserve.Seconds()))))
	least := burst - 3*(ahead-1)
	if admitted < least || admitted > allowed || shared == 0 {
		t.Fatalf("three replicas admitted %d calls in %s (%d refused by the shared rate), want %d (the burst, less the tokens taken ahead unused) to %d (burst + rate × time), some refused by the shared rate",
			admitted, elapsed, shared, least, allowed)
	}
	t.Logf("three replicas admitted %d of %d calls in %s (rate %g/s, burst %d)", admitted, 3*calls, elapsed, rate, burst)
}

// TestBreakerOpenedByOneReplicaRefusesOnAnother: the failures one process
// sees open the circuit for the others, whose own circuits saw nothing;
// after the cool-down one probe goes through for all, and its success
// closes the circuit everywhere.
func TestBreakerOpenedByOneReplicaRefusesOnAnother(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	const cooldown = 300 * time.Millisecond
	limits := guard.Limits{BreakerFailures: 3, BreakerCooldown: cooldown}
	a := newReplica(t, url, p, limits, 0, nil)
	b := newReplica(t, url, p, limits, 0, nil)
	c := newReplica(t, url, p, limits, 0, nil)
	for range 3 {
		tk, err := a.guard.Admit("Cli", "Flaky")
		if err != nil {
			t.Fatal(err)
		}
		tk.Done(a2a.CodeTimeout)
	}
	var refusal error
	testenv.Eventually(t, "another replica refuses the circuit the failures opened", func() bool {
		tk, err := b.guard.Admit("Cli2", "flaky")
		if err == nil {
			tk.Abandon() // not a probe: counted neither way
			return false
		}
		refusal = err
		return true
	})
	if code(refusal) != a2a.CodeCircuitOpen || !strings.Contains(refusal.Error(), "seen by the caller's processes") {
		t.Fatalf("refusal %v, want CIRCUIT_OPEN of the shared circuit", refusal)
	}
	if s := b.guard.CircuitState("Flaky"); s != "closed" {
		t.Fatalf("the refusing replica's own circuit is %s, want closed: it saw no failure", s)
	}
	var probe *guard.Ticket
	testenv.Eventually(t, "one probe goes through after the cool-down", func() bool {
		tk, err := b.guard.Admit("Cli2", "Flaky")
		probe = tk
		return err == nil
	})
	if _, err := c.guard.Admit("Cli", "Flaky"); code(err) != a2a.CodeCircuitOpen || !strings.Contains(err.Error(), "half-open") {
		t.Fatalf("a call while another replica probes: %v, want CIRCUIT_OPEN half-open", err)
	}
	probe.Done("")
	testenv.Eventually(t, "the probe's success closes the circuit for every replica", func() bool {
		tk, err := c.guard.Admit("Cli", "Flaky")
		if err != nil {
			return false
		}
		tk.Done("")
		return true
	})
}

// TestGCRAOfAFractionalRate: a rate that is not a whole number of calls per
// second still holds: 0.5/s with a burst of 1 admits one call, then refuses
// saying to retry in about two seconds.
func TestGCRAOfAFractionalRate(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	r := newReplica(t, url, p, guard.Limits{Rate: 0.5, Burst: 1}, 0, nil)
	if _, err := r.guard.Admit("Cli", "Slow"); err != nil {
		t.Fatal(err)
	}
	wait, ok, err := r.limits.TakeToken("Cli", "Slow", 0.5, 1)
	if err != nil || ok || wait < time.Second || wait > 2*time.Second {
		t.Fatalf("TakeToken right after the burst: wait %s, ok %v, %v; want refused with a wait of 1s to 2s", wait, ok, err)
	}
}

// TestOptionsRefused: New names what is wrong.
func TestOptionsRefused(t *testing.T) {
	if _, err := redislimits.New(redislimits.Options{}); !errors.Is(err, redislimits.ErrInvalidOptions) || !strings.Contains(err.Error(), "client") {
		t.Errorf("no client: %v", err)
	}
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	defer func() { _ = c.Close() }()
	if _, err := redislimits.New(redislimits.Options{Client: c, Lease: time.Millisecond}); !errors.Is(err, redislimits.ErrInvalidOptions) || !strings.Contains(err.Error(), "lease") {
		t.Errorf("short lease: %v", err)
	}
	if _, err := (&redislimits.Limits{}).Enter("Cli", "a/b", 1, 1, time.Second); !errors.Is(err, guard.ErrNotShared) {
		t.Error("a bad target name was taken")
	}
}

func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zap.InfoLevel)
	return zap.New(core), logs
}

// TestACallAfterOneFinishesIsNeverBusy: a process that keeps exactly
// max_in_flight calls going (each goroutine makes its next call when its
// last one finished) is never refused BUSY by the shared limit for a slot a
// finished call held, whether or not the background write of the release
// has landed, nor for one another call's take reserved meanwhile.
func TestACallAfterOneFinishesIsNeverBusy(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	const n = 64 // as the bench: its block grows by up to 16 slots a take, the takes racing
	r := newReplica(t, url, p, guard.Limits{MaxInFlight: n}, 0, nil)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				tk, err := r.guard.Admit("Cli", "ResearchAgent")
				if err != nil {
					t.Errorf("call %d, right after the previous one finished: %v", i+1, err)
					return
				}
				time.Sleep(time.Millisecond) // the call runs: the others' takes overlap
				tk.Done("")
			}
		}()
	}
	wg.Wait()
}
