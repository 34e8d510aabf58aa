// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"sync"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// BrokerState is what a bus tells about its connection (rabbitmq.Bus has
// it; the embedded bus, always connected, has not).
type BrokerState interface {
	// Connected reports whether the bus's connections are open now.
	Connected() bool
	// Reconnects is how many times a lost connection was dialled again.
	Reconnects() uint64
}

// Circuit states as the a2abus_breaker_state gauge reports them.
const (
	circuitClosed   = 0
	circuitHalfOpen = 1
	circuitOpen     = 2
)

// collector reports, at scrape time, the state the parts keep themselves:
// calls in flight, circuits and refusals (the guard), the broker connection
// (the bus) and the agents known (the directory). It costs nothing between
// scrapes.
type collector struct {
	inFlight, breaker, refusals, sharedUp, connected, reconnects, agents *prom.Desc

	mu        sync.Mutex
	guard     *guard.Guard
	broker    BrokerState
	directory *directory.Directory
}

func newCollector() *collector {
	gauge := func(name, help string, labels ...string) *prom.Desc {
		return prom.NewDesc(prom.GaugeType, Namespace+"_"+name, help, labels...)
	}
	counter := func(name, help string, labels ...string) *prom.Desc {
		return prom.NewDesc(prom.CounterType, Namespace+"_"+name, help, labels...)
	}
	return &collector{
		inFlight:   gauge("calls_in_flight", "Calls a caller invoked whose outcome it has not seen yet (the guard's count).", "caller"),
		breaker:    gauge("breaker_state", "State of the circuit to a target: 0 closed, 1 half-open, 2 open.", "target"),
		refusals:   counter("guard_refusals_total", "Calls the guard refused before they were sent, by reason (FORBIDDEN, BUSY, RATE_LIMITED, CIRCUIT_OPEN).", "reason"),
		sharedUp:   gauge("guard_shared_limits_up", "With limits.shared on Redis: 1 while the shared limits answer, 0 while each process keeps only its own."),
		connected:  gauge("broker_connected", "1 while the broker connections are open, 0 while they are re-dialled."),
		reconnects: counter("broker_reconnects_total", "Broker connections dialled again after they were lost."),
		agents:     gauge("directory_agents", "Agents the directory knows, by status (online, offline, well-known).", "status"),
	}
}

// Describe sends the descriptors of every metric the collector may report.
func (c *collector) Describe() []*prom.Desc {
	return []*prom.Desc{c.inFlight, c.breaker, c.refusals, c.sharedUp, c.connected, c.reconnects, c.agents}
}

// Collect reports the current values.
func (c *collector) Collect(sink *prom.Sink) {
	c.mu.Lock()
	g, b, d := c.guard, c.broker, c.directory
	c.mu.Unlock()
	if g != nil {
		s := g.Stats()
		for name, n := range s.InFlight {
			sink.Add(c.inFlight, float64(n), name)
		}
		for target, state := range s.Circuits {
			v := circuitClosed
			switch state {
			case "open":
				v = circuitOpen
			case "half-open":
				v = circuitHalfOpen
			}
			sink.Add(c.breaker, float64(v), target)
		}
		for code, n := range s.Refused {
			sink.Add(c.refusals, float64(n), string(code))
		}
		if s.Shared {
			up := 0.0
			if s.SharedUp {
				up = 1
			}
			sink.Add(c.sharedUp, up)
		}
	}
	if b != nil {
		up := 0.0
		if b.Connected() {
			up = 1
		}
		sink.Add(c.connected, up)
		sink.Add(c.reconnects, float64(b.Reconnects()))
	}
	if d != nil {
		counts := map[directory.Status]int{directory.StatusOnline: 0, directory.StatusOffline: 0, directory.StatusWellKnown: 0}
		for _, e := range d.List(directory.Filter{}) {
			counts[e.Status]++
		}
		for status, n := range counts {
			sink.Add(c.agents, float64(n), string(status))
		}
	}
}
