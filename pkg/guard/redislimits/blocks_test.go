// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redislimits_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/guard/redislimits"
)

// TestGuardsNeverExceedTheGlobalMax: three guards of one caller (the
// processes' stand-ins, each with its own client and instance id), each
// allowed the whole max on its own, admit and finish calls from many
// goroutines at once while their blocks grow and shrink: the calls
// admitted and unfinished, counted at every admission, and the slots in
// Redis, sampled meanwhile, never exceed the one max.
func TestGuardsNeverExceedTheGlobalMax(t *testing.T) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	p := prefix(t, c)
	const maxInFlight, calls = 8, 40
	workers := []int{10, 3, 3} // per guard: the first grows its block, the others take what it gives back
	limits := guard.Limits{MaxInFlight: maxInFlight}
	var (
		holders, most, admitted, busy atomic.Int64
		wg                            sync.WaitGroup
	)
	k, err := memory.InFlightSlotsKey("Cli")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	sampled := make(chan int64)
	go func() { // the slots in Redis, while the guards run
		var worst int64
		for {
			select {
			case <-stop:
				sampled <- worst
				return
			default:
			}
			if n, err := c.ZCard(context.Background(), p+"limits:"+k).Result(); err == nil {
				worst = max(worst, n)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for _, w := range workers {
		r := newReplica(t, url, p, limits, 0, nil)
		for range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range calls {
					tk, err := r.guard.Admit("Cli", "ResearchAgent")
					if code(err) == a2a.CodeBusy {
						busy.Add(1)
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						t.Errorf("Admit: %v, want a ticket or BUSY", err)
						return
					}
					admitted.Add(1)
					n := holders.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(2 * time.Millisecond) // the call runs
					holders.Add(-1)
					tk.Done("")
				}
			}()
		}
	}
	wg.Wait()
	close(stop)
	inRedis := <-sampled
	if most.Load() > maxInFlight || inRedis > maxInFlight {
		t.Fatalf("up to %d calls in flight at once across the guards, %d slots in Redis; want at most %d", most.Load(), inRedis, maxInFlight)
	}
	if admitted.Load() == 0 || busy.Load() == 0 {
		t.Fatalf("%d admitted, %d BUSY: want both (the guards compete for the slots)", admitted.Load(), busy.Load())
	}
	t.Logf("%d calls admitted, %d BUSY; up to %d in flight at once, %d slots in Redis (max %d)", admitted.Load(), busy.Load(), most.Load(), inRedis, maxInFlight)
}

// admitN admits calls calls of caller on r, each to succeed, and returns their tickets.
func admitN(t *testing.T, r replica, caller string, calls int) []*guard.Ticket {
	t.Helper()
	tickets := make([]*guard.Ticket, 0, calls)
	for i := range calls {
		tk, err := r.guard.Admit(caller, "ResearchAgent")
		if err != nil {
			t.Fatalf("call %d of %s: %v", i+1, caller, err)
		}
		tickets = append(tickets, tk)
	}
	return tickets
}

// reserving returns the key prefix of a test and guards of one caller
// allowed max in flight, which keep the slots they reserved for a minute
// and give none back idle: what they hold is what they took.
func reserving(t *testing.T, url string, maxInFlight, guards int) (string, []replica) {
	t.Helper()
	p := prefix(t, client(t, url))
	opts := redislimits.Options{KeyPrefix: p, Lease: time.Minute, IdleReturn: time.Hour}
	reps := make([]replica, guards)
	for i := range reps {
		reps[i] = newReplicaWith(t, url, opts, guard.Limits{MaxInFlight: maxInFlight})
	}
	return p, reps
}

// TestGuardReservesSlotsAhead: a guard that finished its calls keeps their
// slots reserved (a call after them makes no round trip), and one that
// closes gives them back at once, whatever its idle return.
func TestGuardReservesSlotsAhead(t *testing.T) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	const n = 6
	p, reps := reserving(t, url, n, 2)
	a, b := reps[0], reps[1]
	for _, tk := range admitN(t, a, "Cli", n) {
		tk.Done("")
	}
	if got := len(slotScores(t, c, p, "Cli")); got != n {
		t.Fatalf("%d slots in Redis after the calls finished, want %d still reserved by the guard", got, n)
	}
	if _, err := b.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
		t.Fatalf("another guard while the first reserves every slot: %v, want BUSY", err)
	}
	if err := a.guard.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(slotScores(t, c, p, "Cli")); got != 0 {
		t.Fatalf("%d slots in Redis once the guard closed, want 0: its reserved slots go back at once", got)
	}
	for i := range n {
		if _, err := b.guard.Admit("Cli", "ResearchAgent"); err != nil {
			t.Fatalf("slot %d of the closed guard: %v", i+1, err)
		}
	}
}

// TestIdleReservedSlotsGoBack: a guard whose calls finished gives back the
// slots it reserved once they are idle (Options.IdleReturn), so another
// guard that was BUSY gets them long before their lease (a minute) would
// free them.
func TestIdleReservedSlotsGoBack(t *testing.T) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	p := prefix(t, c)
	const n = 4
	limits := guard.Limits{MaxInFlight: n}
	a := newReplicaWith(t, url, redislimits.Options{KeyPrefix: p, Lease: time.Minute}, limits)
	b := newReplicaWith(t, url, redislimits.Options{KeyPrefix: p, Lease: time.Minute}, limits)
	tickets := admitN(t, a, "Cli", n)
	if _, err := b.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
		t.Fatalf("another guard while the first's calls run: %v, want BUSY", err)
	}
	for _, tk := range tickets {
		tk.Done("")
	}
	finished := time.Now()
	got := 0
	testenv.Eventually(t, "the other guard takes the idle slots", func() bool {
		for got < n {
			if _, err := b.guard.Admit("Cli", "ResearchAgent"); err != nil {
				return false
			}
			got++
		}
		return true
	})
	t.Logf("the other guard had every slot %s after the calls finished (idle return %s, tick %s, lease %s)",
		time.Since(finished).Round(time.Millisecond), redislimits.DefaultIdleReturn, redislimits.Tick, time.Minute)
	if _, err := a.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
		t.Fatalf("the first guard once it gave its slots back: %v, want BUSY", err)
	}
}

// TestCircuitOpenedElsewhereIsSeen: a guard whose copy of a circuit says
// closed sees it open once another guard's failures opened it in Redis,
// without reporting anything itself (its copy is refreshed every
// CircuitRefresh); the guard whose failure opened it refuses at once.
func TestCircuitOpenedElsewhereIsSeen(t *testing.T) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	p := prefix(t, c)
	limits := guard.Limits{BreakerFailures: 2, BreakerCooldown: time.Minute}
	a := newReplica(t, url, p, limits, 0, nil)
	b := newReplica(t, url, p, limits, 0, nil)
	tk, err := b.guard.Admit("Cli", "Flaky") // b reads the circuit: closed
	if err != nil {
		t.Fatal(err)
	}
	tk.Done("")
	tk, err = a.guard.Admit("Cli", "Flaky")
	if err != nil {
		t.Fatal(err)
	}
	tk.Done(a2a.CodeTimeout)
	tk, err = a.guard.Admit("Cli", "Flaky")
	if err != nil {
		t.Fatal(err)
	}
	// The shared circuit opens at the second failure; a's own breaker too.
	tk.Done(a2a.CodeTimeout)
	k, err := memory.CircuitKey("Flaky")
	if err != nil {
		t.Fatal(err)
	}
	var opened time.Time
	testenv.Eventually(t, "the failures open the circuit in Redis", func() bool {
		o, err := c.HGet(context.Background(), p+"limits:"+k, "o").Int64()
		opened = time.Now()
		return err == nil && o > 0
	})
	testenv.Eventually(t, "the other guard sees the circuit open", func() bool {
		tk, err := b.guard.Admit("Cli", "Flaky")
		if err == nil {
			tk.Abandon()
			return false
		}
		if code(err) != a2a.CodeCircuitOpen || !strings.Contains(err.Error(), "seen by the caller's processes") {
			t.Fatalf("refusal %v, want CIRCUIT_OPEN of the shared circuit", err)
		}
		return true
	})
	t.Logf("seen %s after the circuit opened in Redis (refresh every %s)", time.Since(opened).Round(time.Millisecond), redislimits.CircuitRefresh)
	if s := b.guard.CircuitState("Flaky"); s != "closed" {
		t.Fatalf("the refusing guard's own circuit is %s, want closed: it saw no failure", s)
	}
}

// TestBlockGrowsWithinWhatRedisGrants: a guard with calls running reserves
// more than one slot at a time (half its block, up to a quarter of the
// max), but never serves more than Redis granted it: a take that finds
// one slot free gets one, and the next call is BUSY.
func TestBlockGrowsWithinWhatRedisGrants(t *testing.T) {
	url := testenv.RedisURL(t)
	c := client(t, url)
	const n = 8
	p, reps := reserving(t, url, n, 2)
	a, b := reps[0], reps[1]
	admit := func(r replica, calls int) { t.Helper(); admitN(t, r, "Cli", calls) }
	admit(a, 4) // one slot per take while the block is small
	if got := len(slotScores(t, c, p, "Cli")); got != 4 {
		t.Fatalf("%d slots in Redis after 4 calls from an empty block, want 4", got)
	}
	admit(a, 1) // the block of 4 grows by 2: one for the call, one reserved
	if got := len(slotScores(t, c, p, "Cli")); got != 6 {
		t.Fatalf("%d slots in Redis after the 5th call, want 6 (one reserved ahead)", got)
	}
	admit(a, 1) // from the reserved slot: no take
	admit(b, 1) // 7 taken; the other guard's block holds 1
	admit(a, 1) // the block of 6 asks for 2, gets the last one
	if got := len(slotScores(t, c, p, "Cli")); got != n {
		t.Fatalf("%d slots in Redis, want %d", got, n)
	}
	for _, r := range []replica{a, b} {
		if _, err := r.guard.Admit("Cli", "ResearchAgent"); code(err) != a2a.CodeBusy {
			t.Fatalf("a call with every slot taken: %v, want BUSY", err)
		}
	}
}

// TestRacingTakesNeverBusyBelowTheMax: two calls that find their block
// empty at once both take from Redis; when the first's take reserved the
// last slots, the second gets the one reserved ahead rather than BUSY
// (the block of 6 asks for 2 each, and 2 are left of the max of 8).
func TestRacingTakesNeverBusyBelowTheMax(t *testing.T) {
	url := testenv.RedisURL(t)
	const n = 8
	_, reps := reserving(t, url, n, 1)
	r := reps[0]
	for round := range 20 {
		caller := fmt.Sprint("Cli", round)
		admitN(t, r, caller, n-2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := r.guard.Admit(caller, "ResearchAgent"); err != nil {
					t.Errorf("round %d: one of the last two calls below the max: %v", round+1, err)
				}
			}()
		}
		close(start)
		wg.Wait()
	}
}

// TestRateTokensTakenAhead: a process that uses up the tokens of a high
// rate takes more ahead each time (up to a quarter of the burst), and
// serves a call from them with no round trip: with Redis gone, the next
// calls are admitted from the tokens left, and only the call that needs
// Redis finds it down. A low rate is taken one token at a time.
func TestRateTokensTakenAhead(t *testing.T) {
	url := testenv.RedisURL(t)
	p := prefix(t, client(t, url))
	proxy, proxied := testenv.ProxyURL(t, url)
	const rate, burst = 1000, 100
	r := newReplicaWith(t, proxied, redislimits.Options{KeyPrefix: p, TokenReserve: time.Minute}, guard.Limits{Rate: rate, Burst: burst})
	for i := range 1 + 2 + 4 + 8 + 16 { // asks for 1, 2, 4, 8, 16: used up, the next asks for 25
		if _, ok, err := r.limits.TakeToken("Cli", "Fast", rate, burst); err != nil || !ok {
			t.Fatalf("token %d: ok %v, %v", i+1, ok, err)
		}
	}
	if _, ok, err := r.limits.TakeToken("Cli", "Fast", rate, burst); err != nil || !ok { // takes 25
		t.Fatalf("token 32: ok %v, %v", ok, err)
	}
	proxy.Down()
	for i := range 24 {
		if _, ok, err := r.limits.TakeToken("Cli", "Fast", rate, burst); err != nil || !ok {
			t.Fatalf("token %d of those taken ahead, with Redis down: ok %v, %v", i+1, ok, err)
		}
	}
	if _, _, err := r.limits.TakeToken("Cli", "Fast", rate, burst); err == nil {
		t.Fatal("a token past those taken ahead, with Redis down: no error")
	}
	proxy.Up()
	if _, ok, err := r.limits.TakeToken("Cli", "Slow", 2, 3); err != nil || !ok {
		t.Fatalf("a token of a low rate: ok %v, %v", ok, err)
	}
	proxy.Down()
	if _, _, err := r.limits.TakeToken("Cli", "Slow", 2, 3); err == nil {
		t.Fatal("a second token of a low rate (2/s: taken one at a time), with Redis down: no error")
	}
}
