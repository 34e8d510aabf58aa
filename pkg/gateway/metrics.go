// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"fmt"
	"strconv"
	"time"

	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// metrics are the gateway's Prometheus metrics (labels bounded: the A2A
// methods, the HTTP status, a few reasons and outcomes). Without a
// Registry they are counted and never served.
type metrics struct {
	requests *prom.CounterVec
	duration *prom.HistogramVec
	refusals *prom.CounterVec
	pushes   *prom.CounterVec
	streams  *prom.Gauge
}

func newMetrics(reg *prom.Registry) (*metrics, error) {
	streams := prom.NewGaugeVec("a2abus_gateway_streams", "Event streams open on this gateway.")
	m := &metrics{
		requests: prom.NewCounterVec("a2abus_gateway_requests_total",
			"A2A gateway requests by method (an A2A method, card, catalog, other) and HTTP status.", "method", "status"),
		duration: prom.NewHistogramVec("a2abus_gateway_request_duration_seconds",
			"Time to answer a gateway request (a stream: until it ends), by method.",
			[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}, "method"),
		refusals: prom.NewCounterVec("a2abus_gateway_refusals_total",
			"Requests the gateway refused before the bus: auth (401/403), rate (429), streams (503).", "reason"),
		pushes: prom.NewCounterVec("a2abus_gateway_pushes_total",
			"Push notifications: delivered, failed (after the retries), refused (a URL outside gateway.push.allow).", "outcome"),
		streams: streams.With(), // a gauge without labels: served as 0 from the start, as before
	}
	if reg != nil {
		for _, c := range []prom.Collector{m.requests, m.duration, m.refusals, m.pushes, streams} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("gateway: register the metrics: %w", err)
			}
		}
	}
	return m, nil
}

func (m *metrics) request(method string, status int, d time.Duration) {
	m.requests.With(method, strconv.Itoa(status)).Inc()
	m.duration.With(method).Observe(d.Seconds())
}

func (m *metrics) refused(reason string) { m.refusals.With(reason).Inc() }

func (m *metrics) push(outcome string) { m.pushes.With(outcome).Inc() }
