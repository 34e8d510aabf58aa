// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/guard"
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
	inFlight, breaker, refusals, sharedUp, connected, reconnects, agents *prometheus.Desc

	mu        sync.Mutex
	guard     *guard.Guard
	broker    BrokerState
	directory *directory.Directory
}

func newCollector() *collector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
	}
	return &collector{
		inFlight:   desc("calls_in_flight", "Calls a caller invoked whose outcome it has not seen yet (the guard's count).", "caller"),
		breaker:    desc("breaker_state", "State of the circuit to a target: 0 closed, 1 half-open, 2 open.", "target"),
		refusals:   desc("guard_refusals_total", "Calls the guard refused before they were sent, by reason (FORBIDDEN, BUSY, RATE_LIMITED, CIRCUIT_OPEN).", "reason"),
		sharedUp:   desc("guard_shared_limits_up", "With limits.shared on Redis: 1 while the shared limits answer, 0 while each process keeps only its own."),
		connected:  desc("broker_connected", "1 while the broker connections are open, 0 while they are re-dialled."),
		reconnects: desc("broker_reconnects_total", "Broker connections dialled again after they were lost."),
		agents:     desc("directory_agents", "Agents the directory knows, by status (online, offline, well-known).", "status"),
	}
}

// Describe sends the descriptors of every metric the collector may report.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.inFlight, c.breaker, c.refusals, c.sharedUp, c.connected, c.reconnects, c.agents} {
		ch <- d
	}
}

// Collect reports the current values.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	g, b, d := c.guard, c.broker, c.directory
	c.mu.Unlock()
	if g != nil {
		s := g.Stats()
		for name, n := range s.InFlight {
			ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(n), name)
		}
		for target, state := range s.Circuits {
			v := circuitClosed
			switch state {
			case "open":
				v = circuitOpen
			case "half-open":
				v = circuitHalfOpen
			}
			ch <- prometheus.MustNewConstMetric(c.breaker, prometheus.GaugeValue, float64(v), target)
		}
		for code, n := range s.Refused {
			ch <- prometheus.MustNewConstMetric(c.refusals, prometheus.CounterValue, float64(n), string(code))
		}
		if s.Shared {
			up := 0.0
			if s.SharedUp {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(c.sharedUp, prometheus.GaugeValue, up)
		}
	}
	if b != nil {
		up := 0.0
		if b.Connected() {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.connected, prometheus.GaugeValue, up)
		ch <- prometheus.MustNewConstMetric(c.reconnects, prometheus.CounterValue, float64(b.Reconnects()))
	}
	if d != nil {
		counts := map[directory.Status]int{directory.StatusOnline: 0, directory.StatusOffline: 0, directory.StatusWellKnown: 0}
		for _, e := range d.List(directory.Filter{}) {
			counts[e.Status]++
		}
		for status, n := range counts {
			ch <- prometheus.MustNewConstMetric(c.agents, prometheus.GaugeValue, float64(n), string(status))
		}
	}
}
