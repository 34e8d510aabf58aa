// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package prom is a small Prometheus registry: counters, gauges and
// histograms with labels, families reported at scrape time, and the Go and
// process metrics, written in the Prometheus text exposition format
// (version 0.0.4) for /metrics. It replaces the Prometheus client library,
// whose protobuf runtime and procfs every agent would otherwise link
// (docs/performance.md, "Prometheus stays"); what it writes is parsed by
// Prometheus's own text parser in its tests.
package prom

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Sentinel errors of Register.
var (
	// ErrInvalidName: a metric or label name Prometheus does not accept.
	ErrInvalidName = errors.New("prom: invalid name")
	// ErrDuplicate: a metric name registered twice in one registry.
	ErrDuplicate = errors.New("prom: metric registered twice")
)

// Type is a metric family's type, as "# TYPE" writes it.
type Type string

// The family types.
const (
	CounterType   Type = "counter"
	GaugeType     Type = "gauge"
	HistogramType Type = "histogram"
	SummaryType   Type = "summary"
)

// Desc describes one metric family: its name, help, type and label names.
type Desc struct {
	name, help string
	typ        Type
	labels     []string
}

// NewDesc describes a family; Register checks the names.
func NewDesc(typ Type, name, help string, labels ...string) *Desc {
	return &Desc{name: name, help: help, typ: typ, labels: slices.Clone(labels)}
}

// Name is the family's metric name.
func (d *Desc) Name() string { return d.name }

// Help is the family's help text.
func (d *Desc) Help() string { return d.help }

// Type is the family's type.
func (d *Desc) Type() Type { return d.typ }

// Labels are the family's label names, in the order values are given.
func (d *Desc) Labels() []string { return slices.Clone(d.labels) }

// check reports a name Prometheus would refuse.
func (d *Desc) check() error {
	if !validName(d.name, true) {
		return fmt.Errorf("%w: metric %q", ErrInvalidName, d.name)
	}
	for _, l := range d.labels {
		if !validName(l, false) || strings.HasPrefix(l, "__") || l == "le" && d.typ == HistogramType || l == "quantile" && d.typ == SummaryType {
			return fmt.Errorf("%w: label %q of %s", ErrInvalidName, l, d.name)
		}
	}
	return nil
}

// validName: [a-zA-Z_:][a-zA-Z0-9_:]* for a metric (no colon for a label).
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ':' && colon || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// Collector reports one or more families: Describe names them once, at
// registration; Collect reports their current samples at every scrape.
type Collector interface {
	Describe() []*Desc
	Collect(s *Sink)
}

// Registry holds the collectors /metrics reports. Safe for concurrent use.
type Registry struct {
	mu         sync.Mutex
	names      map[string]bool
	collectors []Collector

	handlerOnce sync.Once
	handler     http.Handler
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

// Register adds c; a name that is invalid or already registered is an
// error (ErrInvalidName, ErrDuplicate) and nothing of c is added.
func (r *Registry) Register(c Collector) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	descs := c.Describe()
	seen := map[string]bool{}
	for _, d := range descs {
		if err := d.check(); err != nil {
			return err
		}
		if r.names[d.name] || seen[d.name] {
			return fmt.Errorf("%w: %s", ErrDuplicate, d.name)
		}
		seen[d.name] = true
	}
	for name := range seen {
		r.names[name] = true
	}
	r.collectors = append(r.collectors, c)
	return nil
}

// Descs lists every registered family, sorted by name.
func (r *Registry) Descs() []*Desc {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	var out []*Desc
	for _, c := range cs {
		out = append(out, c.Describe()...)
	}
	slices.SortFunc(out, func(a, b *Desc) int { return strings.Compare(a.name, b.name) })
	return out
}

// gather collects every family with at least one sample, sorted by name,
// each family's samples sorted by their labels.
func (r *Registry) gather() []*family {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	s := &Sink{families: map[*Desc]*family{}}
	for _, c := range cs {
		c.Collect(s)
	}
	out := make([]*family, 0, len(s.families))
	for _, f := range s.families {
		slices.SortFunc(f.samples, func(a, b sample) int { return compareLabels(a.labels, b.labels) })
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *family) int { return strings.Compare(a.desc.name, b.desc.name) })
	return out
}

// family is a family's samples at one scrape.
type family struct {
	desc    *Desc
	samples []sample
}

// sample is one labelled metric of a family: a value, or a histogram's or
// summary's distribution.
type sample struct {
	labels []labelPair // sorted by name
	value  float64
	dist   *distribution
}

type labelPair struct{ name, value string }

// distribution is a histogram's cumulative bucket counts (with their upper
// bounds, +Inf left out) or a summary's quantiles, and their sum and count.
type distribution struct {
	bounds, quantiles []float64
	counts            []uint64 // histogram: cumulative, one per bound
	values            []float64
	sum               float64
	count             uint64
}

func compareLabels(a, b []labelPair) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i].name, b[i].name); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].value, b[i].value); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// Sink receives a collector's samples during a scrape.
type Sink struct {
	families map[*Desc]*family
}

// Add reports one sample of a counter or gauge family: its value and its
// label values, in d's label order (missing ones are empty, extra ones dropped).
func (s *Sink) Add(d *Desc, value float64, labelValues ...string) {
	s.add(d, sample{labels: pairs(d.labels, labelValues), value: value})
}

// AddSummary reports one sample of a summary family: its quantiles
// (quantile → value), sum and count.
func (s *Sink) AddSummary(d *Desc, count uint64, sum float64, quantiles map[float64]float64, labelValues ...string) {
	dist := &distribution{sum: sum, count: count}
	for q := range quantiles {
		dist.quantiles = append(dist.quantiles, q)
	}
	slices.Sort(dist.quantiles)
	for _, q := range dist.quantiles {
		dist.values = append(dist.values, quantiles[q])
	}
	s.add(d, sample{labels: pairs(d.labels, labelValues), dist: dist})
}

func (s *Sink) add(d *Desc, smp sample) {
	f := s.families[d]
	if f == nil {
		f = &family{desc: d}
		s.families[d] = f
	}
	f.samples = append(f.samples, smp)
}

// pairs are names with values, sorted by name (as Prometheus's client
// writes them).
func pairs(names, values []string) []labelPair {
	if len(names) == 0 {
		return nil
	}
	out := make([]labelPair, len(names))
	for i, n := range names {
		out[i].name = n
		if i < len(values) {
			out[i].value = values[i]
		}
	}
	slices.SortFunc(out, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	return out
}
