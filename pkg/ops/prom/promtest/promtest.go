// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package promtest reads a prom.Registry back as Prometheus does: its text
// exposition parsed by Prometheus's own text parser (expfmt), into the
// client model's metric families. For tests only: it links the Prometheus
// client model and its protobuf runtime, which no program may
// (docs/link_test.go).
package promtest

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// ErrNoSuchMetric: no sample of that name has exactly those labels.
var ErrNoSuchMetric = errors.New("promtest: no such metric")

// Parse parses a text exposition with Prometheus's parser, the families
// sorted by name.
func Parse(text []byte) ([]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.LegacyValidation)
	m, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	out := make([]*dto.MetricFamily, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out, nil
}

// Gather writes reg's exposition and parses it back.
func Gather(reg *prom.Registry) ([]*dto.MetricFamily, error) {
	var b bytes.Buffer
	if err := reg.WriteText(&b); err != nil {
		return nil, err
	}
	return Parse(b.Bytes())
}

// Value is the value of the sample name with exactly labels in reg: a
// counter's or gauge's value, a histogram's or summary's count.
func Value(reg *prom.Registry, name string, labels map[string]string) (float64, error) {
	families, err := Gather(reg)
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !sameLabels(m.GetLabel(), labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue(), nil
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), nil
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), nil
			case m.Summary != nil:
				return float64(m.GetSummary().GetSampleCount()), nil
			case m.Untyped != nil:
				return m.GetUntyped().GetValue(), nil
			}
		}
	}
	return 0, ErrNoSuchMetric
}

func sameLabels(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, l := range got {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}
