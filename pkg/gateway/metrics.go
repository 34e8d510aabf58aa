// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the gateway's Prometheus metrics (labels bounded: the A2A
// methods, the HTTP status, a few reasons and outcomes). Without a
// Registerer they are counted and never served.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	refusals *prometheus.CounterVec
	pushes   *prometheus.CounterVec
	streams  prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abus_gateway_requests_total",
			Help: "A2A gateway requests by method (an A2A method, card, catalog, other) and HTTP status."}, []string{"method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "a2abus_gateway_request_duration_seconds",
			Help:    "Time to answer a gateway request (a stream: until it ends), by method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}}, []string{"method"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abus_gateway_refusals_total",
			Help: "Requests the gateway refused before the bus: auth (401/403), rate (429), streams (503)."}, []string{"reason"}),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abus_gateway_pushes_total",
			Help: "Push notifications: delivered, failed (after the retries), refused (a URL outside gateway.push.allow)."}, []string{"outcome"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "a2abus_gateway_streams",
			Help: "Event streams open on this gateway."}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.requests, m.duration, m.refusals, m.pushes, m.streams} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("gateway: register the metrics: %w", err)
			}
		}
	}
	return m, nil
}

func (m *metrics) request(method string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method).Observe(d.Seconds())
}

func (m *metrics) refused(reason string) { m.refusals.WithLabelValues(reason).Inc() }

func (m *metrics) push(outcome string) { m.pushes.WithLabelValues(outcome).Inc() }
