// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/a2abus/a2abus/pkg/ops/prom"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// awkward are label values the text format must escape.
var awkward = []string{`quote " here`, `back\slash`, "line\nfeed", "", "ünïcødé"}

var buckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800}

// clientText is what the Prometheus client writes for reg.
func clientText(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func ownText(t *testing.T, reg *prom.Registry) string {
	t.Helper()
	var b bytes.Buffer
	if err := reg.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSameExpositionAsTheClient: counters, gauges and histograms with
// labels (values that need escaping among them), a summary and families
// without a series are written byte for byte as the Prometheus client
// writes them, and Prometheus's parser reads them back.
func TestSameExpositionAsTheClient(t *testing.T) {
	theirs := prometheus.NewRegistry()
	ours := prom.NewRegistry()

	tc := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abus_calls_total", Help: "Calls by outcome.\nSecond line with a \\ backslash."}, []string{"caller", "outcome"})
	oc := prom.NewCounterVec("a2abus_calls_total", "Calls by outcome.\nSecond line with a \\ backslash.", "caller", "outcome")
	th := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "a2abus_call_duration_seconds", Help: "Durations.", Buckets: buckets}, []string{"target"})
	oh := prom.NewHistogramVec("a2abus_call_duration_seconds", "Durations.", buckets, "target")
	tg := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "a2abus_last_seen", Help: "A time."}, []string{"remote"})
	og := prom.NewGaugeVec("a2abus_last_seen", "A time.", "remote")
	ts := prometheus.NewGauge(prometheus.GaugeOpts{Name: "a2abus_gateway_streams", Help: "Streams."})
	os := prom.NewGaugeVec("a2abus_gateway_streams", "Streams.")
	tEmpty := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abus_never_total", Help: "No series."}, []string{"x"})
	oEmpty := prom.NewCounterVec("a2abus_never_total", "No series.", "x")
	theirs.MustRegister(tc, th, tg, ts, tEmpty)
	for _, c := range []prom.Collector{oc, oh, og, os, oEmpty} {
		if err := ours.Register(c); err != nil {
			t.Fatal(err)
		}
	}

	for i, v := range awkward {
		for j := 0; j <= i; j++ {
			tc.WithLabelValues(v, "completed").Inc()
			oc.With(v, "completed").Inc()
		}
		tc.WithLabelValues("B", v).Add(0.5)
		oc.With("B", v).Add(0.5)
	}
	for _, x := range []float64{0, .001, .0011, .3, 1, 7, 1800, 1801, 1e9, -2, 0.1 + 0.2} {
		th.WithLabelValues("Sample").Observe(x)
		oh.With("Sample").Observe(x)
	}
	th.WithLabelValues("Other").Observe(.02)
	oh.With("Other").Observe(.02)
	for i, x := range []float64{1700000000.123, math.Inf(1), math.Inf(-1), -1, 1, 0, 1e-300, 12345678912345} {
		name := string(rune('a' + i))
		tg.WithLabelValues(name).Set(x)
		og.With(name).Set(x)
	}
	ts.Inc()
	ts.Inc()
	ts.Dec()
	os.With().Inc()
	os.With().Inc()
	os.With().Dec()

	want, got := clientText(t, theirs), ownText(t, ours)
	if got != want {
		t.Fatalf("the exposition differs from the Prometheus client's\n--- ours\n%s\n--- client_golang\n%s", got, want)
	}
	families, err := promtest.Parse([]byte(got))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses the exposition: %v\n%s", err, got)
	}
	if len(families) != 4 {
		t.Errorf("parsed %d families, want 4 (the one without a series is left out)", len(families))
	}
}

// TestSummaryAsTheClient: a summary's quantiles, sum and count are
// written as the client writes a constant summary (go_gc_duration_seconds).
func TestSummaryAsTheClient(t *testing.T) {
	q := map[float64]float64{0: 0.0001, 0.25: 0.0002, 0.5: 0.0003, 0.75: 0.0004, 1: 0.002}
	theirs := prometheus.NewRegistry()
	desc := prometheus.NewDesc("go_gc_duration_seconds", "Pauses.", nil, nil)
	theirs.MustRegister(constCollector{prometheus.MustNewConstSummary(desc, 7, 0.0123, q)})
	ours := prom.NewRegistry()
	d := prom.NewDesc(prom.SummaryType, "go_gc_duration_seconds", "Pauses.")
	if err := ours.Register(funcCollector{[]*prom.Desc{d}, func(s *prom.Sink) { s.AddSummary(d, 7, 0.0123, q) }}); err != nil {
		t.Fatal(err)
	}
	if want, got := clientText(t, theirs), ownText(t, ours); got != want {
		t.Fatalf("--- ours\n%s\n--- client_golang\n%s", got, want)
	}
}

type constCollector struct{ m prometheus.Metric }

func (c constCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.m.Desc() }
func (c constCollector) Collect(ch chan<- prometheus.Metric) { ch <- c.m }

type funcCollector struct {
	descs   []*prom.Desc
	collect func(*prom.Sink)
}

func (f funcCollector) Describe() []*prom.Desc { return f.descs }
func (f funcCollector) Collect(s *prom.Sink)   { f.collect(s) }

// shape is a family as a scrape sees it, values aside.
type shape struct {
	typ    dto.MetricType
	help   string
	labels string
	n      int
}

func shapes(families []*dto.MetricFamily) map[string]shape {
	out := map[string]shape{}
	for _, f := range families {
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		out[f.GetName()] = shape{f.GetType(), f.GetHelp(), strings.Join(labels, ","), len(f.GetMetric())}
	}
	return out
}

// TestRuntimeFamiliesAsTheClient: the Go and process collectors serve the
// families of the client's default collectors.NewGoCollector and
// NewProcessCollector, with the same names, types, help and labels, and
// values of the right size.
func TestRuntimeFamiliesAsTheClient(t *testing.T) {
	theirs := prometheus.NewRegistry()
	theirs.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ours := prom.NewRegistry()
	for _, c := range []prom.Collector{prom.NewGoCollector(), prom.NewProcessCollector()} {
		if err := ours.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	tf, err := promtest.Parse([]byte(clientText(t, theirs)))
	if err != nil {
		t.Fatal(err)
	}
	of, err := promtest.Gather(ours)
	if err != nil {
		t.Fatal(err)
	}
	want, got := shapes(tf), shapes(of)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s (%v) is missing", name, w.typ)
		} else if g != w {
			t.Errorf("%s = %+v, the client's %+v", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is not one of the client's families", name)
		}
	}
	for _, c := range []struct {
		name     string
		min, max float64
	}{
		{"process_resident_memory_bytes", 1 << 20, 1 << 40},
		{"process_open_fds", 3, 1 << 20},
		{"process_max_fds", 3, math.MaxUint64},
		{"process_start_time_seconds", 1.6e9, 1e11},
		{"go_goroutines", 1, 1e6},
		{"go_memstats_sys_bytes", 1 << 20, 1 << 40},
		{"go_sched_gomaxprocs_threads", 1, 1e4},
		{"go_gc_gogc_percent", 1, 1e6},
	} {
		v, err := promtest.Value(ours, c.name, map[string]string{})
		theirs, _ := promtest.Value(scraped(tf), c.name, map[string]string{})
		if err != nil || v < c.min || v > c.max {
			t.Errorf("%s = %v (%v), want in [%v, %v]; the client read %v", c.name, v, err, c.min, c.max, theirs)
		}
	}
}

// scraped serves parsed families again, for promtest.Value.
func scraped(families []*dto.MetricFamily) *prom.Registry {
	reg := prom.NewRegistry()
	var descs []*prom.Desc
	values := map[*prom.Desc]float64{}
	for _, f := range families {
		if len(f.GetMetric()) != 1 || len(f.GetMetric()[0].GetLabel()) != 0 {
			continue
		}
		m := f.GetMetric()[0]
		d := prom.NewDesc(prom.GaugeType, f.GetName(), f.GetHelp())
		descs = append(descs, d)
		values[d] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	_ = reg.Register(funcCollector{descs, func(s *prom.Sink) {
		for d, v := range values {
			s.Add(d, v)
		}
	}})
	return reg
}

// TestHandler: /metrics answers in the text format's media type, gzipped
// for a client that asks, and counts its encoding errors as the client's
// handler does.
func TestHandler(t *testing.T) {
	reg := prom.NewRegistry()
	c := prom.NewCounterVec("a2abus_x_total", "X.", "k")
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	c.With("v").Inc()
	srv := httptest.NewServer(reg.Handler())
	defer srv.Close()
	if reg.Handler() == nil {
		t.Fatal("a second Handler is nil")
	}
	for _, gz := range []bool{false, true} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Accept-Encoding", map[bool]string{false: "identity", true: "gzip"}[gz])
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		var body io.Reader = resp.Body
		if gz {
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
			}
			if body, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatal(err)
			}
		}
		text, err := io.ReadAll(body)
		_ = resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); ct != prom.ContentType {
			t.Errorf("Content-Type %q", ct)
		}
		families, err := promtest.Parse(text)
		if err != nil {
			t.Fatalf("gzip %v: %v\n%s", gz, err, text)
		}
		if got := shapes(families); got["a2abus_x_total"].n != 1 || got["promhttp_metric_handler_errors_total"].n != 2 {
			t.Errorf("gzip %v: families %+v", gz, got)
		}
	}
}

// TestRegisterRefuses: a name twice, a metric or label name Prometheus
// would refuse, and a reserved label are errors naming it; nothing of the
// refused collector is kept.
func TestRegisterRefuses(t *testing.T) {
	reg := prom.NewRegistry()
	if err := reg.Register(prom.NewCounterVec("a2abus_ok_total", "OK.", "a")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		c    prom.Collector
		want error
	}{
		{prom.NewGaugeVec("a2abus_ok_total", "again"), prom.ErrDuplicate},
		{prom.NewCounterVec("a2abus-dash", "dash"), prom.ErrInvalidName},
		{prom.NewCounterVec("", "empty"), prom.ErrInvalidName},
		{prom.NewCounterVec("9lives", "digit first"), prom.ErrInvalidName},
		{prom.NewCounterVec("a2abus_l_total", "label", "has:colon"), prom.ErrInvalidName},
		{prom.NewCounterVec("a2abus_r_total", "reserved", "__name"), prom.ErrInvalidName},
		{prom.NewHistogramVec("a2abus_h", "le", buckets, "le"), prom.ErrInvalidName},
		{funcCollector{[]*prom.Desc{prom.NewDesc(prom.GaugeType, "a2abus_twice", ""), prom.NewDesc(prom.GaugeType, "a2abus_twice", "")}, func(*prom.Sink) {}}, prom.ErrDuplicate},
	} {
		err := reg.Register(c.c)
		if !errors.Is(err, c.want) {
			t.Errorf("Register(%s) = %v, want %v", c.c.Describe()[0].Name(), err, c.want)
		}
	}
	if n := len(reg.Descs()); n != 1 {
		t.Errorf("%d families registered, want 1", n)
	}
}

// TestConcurrentUpdates: counters and histograms updated from many
// goroutines while scraped lose no update (run with -race).
func TestConcurrentUpdates(t *testing.T) {
	reg := prom.NewRegistry()
	c := prom.NewCounterVec("a2abus_n_total", "N.", "k")
	h := prom.NewHistogramVec("a2abus_d_seconds", "D.", buckets, "k")
	_ = reg.Register(c)
	_ = reg.Register(h)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := string(rune('a' + (g+i)%3))
				c.With(k).Inc()
				h.With(k).Observe(float64(i) / 1000)
				if i%200 == 0 {
					_ = reg.WriteText(io.Discard)
				}
			}
		}()
	}
	wg.Wait()
	var total, count float64
	for _, k := range []string{"a", "b", "c"} {
		v, err := promtest.Value(reg, "a2abus_n_total", map[string]string{"k": k})
		if err != nil {
			t.Fatal(err)
		}
		n, err := promtest.Value(reg, "a2abus_d_seconds", map[string]string{"k": k})
		if err != nil {
			t.Fatal(err)
		}
		total, count = total+v, count+n
	}
	if total != 8000 || count != 8000 {
		t.Errorf("counted %v and observed %v, want 8000 each", total, count)
	}
}
