// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// vec holds one family's children by their label values.
type vec[T any] struct {
	desc     *Desc
	newChild func() *T

	mu       sync.RWMutex
	children map[string]*child[T]
}

type child[T any] struct {
	values []string
	m      *T
}

// with returns the child of labelValues, made on first use. The count of
// values must be the family's count of labels: another is a programming
// error, and panics as the Prometheus client's WithLabelValues does.
func (v *vec[T]) with(labelValues []string) *T {
	if len(labelValues) != len(v.desc.labels) {
		panic(fmt.Sprintf("prom: %s has %d labels, given %d values", v.desc.name, len(v.desc.labels), len(labelValues)))
	}
	key := strings.Join(labelValues, "\xff")
	v.mu.RLock()
	c := v.children[key]
	v.mu.RUnlock()
	if c != nil {
		return c.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if c = v.children[key]; c == nil {
		c = &child[T]{values: slices.Clone(labelValues), m: v.newChild()}
		v.children[key] = c
	}
	return c.m
}

// each calls f with every child.
func (v *vec[T]) each(f func(values []string, m *T)) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, c := range v.children {
		f(c.values, c.m)
	}
}

func newVec[T any](d *Desc, newChild func() *T) vec[T] {
	return vec[T]{desc: d, newChild: newChild, children: map[string]*child[T]{}}
}

// value is a float64 updated atomically.
type value struct{ bits atomic.Uint64 }

func (v *value) add(d float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func (v *value) get() float64 { return math.Float64frombits(v.bits.Load()) }

// Counter is a value that only goes up.
type Counter struct{ v value }

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds d; a negative d is ignored (a counter never goes down).
func (c *Counter) Add(d float64) {
	if d > 0 {
		c.v.add(d)
	}
}

// Value is the counter's current value.
func (c *Counter) Value() float64 { return c.v.get() }

// Gauge is a value that goes up and down.
type Gauge struct{ v value }

// Set sets the gauge to x.
func (g *Gauge) Set(x float64) { g.v.bits.Store(math.Float64bits(x)) }

// Inc adds 1.
func (g *Gauge) Inc() { g.v.add(1) }

// Dec subtracts 1.
func (g *Gauge) Dec() { g.v.add(-1) }

// Add adds d (which may be negative).
func (g *Gauge) Add(d float64) { g.v.add(d) }

// Value is the gauge's current value.
func (g *Gauge) Value() float64 { return g.v.get() }

// CounterVec is a counter family with labels.
type CounterVec struct{ vec[Counter] }

// NewCounterVec is a counter family; register it to serve it.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{newVec(NewDesc(CounterType, name, help, labels...), func() *Counter { return new(Counter) })}
}

// With is the counter of labelValues (one per label, in order).
func (v *CounterVec) With(labelValues ...string) *Counter { return v.with(labelValues) }

// Describe names the family.
func (v *CounterVec) Describe() []*Desc { return []*Desc{v.desc} }

// Collect reports every counter of the family.
func (v *CounterVec) Collect(s *Sink) {
	v.each(func(lv []string, c *Counter) { s.Add(v.desc, c.Value(), lv...) })
}

// GaugeVec is a gauge family with labels (none: one gauge, With()).
type GaugeVec struct{ vec[Gauge] }

// NewGaugeVec is a gauge family; register it to serve it.
func NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{newVec(NewDesc(GaugeType, name, help, labels...), func() *Gauge { return new(Gauge) })}
}

// With is the gauge of labelValues (one per label, in order).
func (v *GaugeVec) With(labelValues ...string) *Gauge { return v.with(labelValues) }

// Describe names the family.
func (v *GaugeVec) Describe() []*Desc { return []*Desc{v.desc} }

// Collect reports every gauge of the family.
func (v *GaugeVec) Collect(s *Sink) {
	v.each(func(lv []string, g *Gauge) { s.Add(v.desc, g.Value(), lv...) })
}

// Histogram counts observations in buckets, with their sum and count.
type Histogram struct {
	bounds []float64 // upper bounds, sorted, +Inf left out

	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// Observe counts x in the first bucket whose upper bound is ≥ x.
func (h *Histogram) Observe(x float64) {
	i, _ := slices.BinarySearch(h.bounds, x)
	h.mu.Lock()
	h.counts[i]++
	h.sum += x
	h.count++
	h.mu.Unlock()
}

// snapshot is the histogram's cumulative counts, sum and count.
func (h *Histogram) snapshot() *distribution {
	d := &distribution{bounds: h.bounds, counts: make([]uint64, len(h.bounds))}
	h.mu.Lock()
	defer h.mu.Unlock()
	var cum uint64
	for i := range h.bounds {
		cum += h.counts[i]
		d.counts[i] = cum
	}
	d.sum, d.count = h.sum, h.count
	return d
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct {
	vec[Histogram]
	bounds []float64
}

// NewHistogramVec is a histogram family with the given upper bounds (a
// +Inf bucket is always added; the bounds are sorted, duplicates and +Inf
// dropped); register it to serve it.
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	bounds := slices.Clone(buckets)
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	bounds = slices.DeleteFunc(bounds, func(b float64) bool { return math.IsInf(b, 1) || math.IsNaN(b) })
	v := &HistogramVec{bounds: bounds}
	v.vec = newVec(NewDesc(HistogramType, name, help, labels...), func() *Histogram {
		return &Histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
	})
	return v
}

// With is the histogram of labelValues (one per label, in order).
func (v *HistogramVec) With(labelValues ...string) *Histogram { return v.with(labelValues) }

// Describe names the family.
func (v *HistogramVec) Describe() []*Desc { return []*Desc{v.desc} }

// Collect reports every histogram of the family.
func (v *HistogramVec) Collect(s *Sink) {
	v.each(func(lv []string, h *Histogram) {
		s.add(v.desc, sample{labels: pairs(v.desc.labels, lv), dist: h.snapshot()})
	})
}
