// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package prom

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes every family with at least one sample in the text
// exposition format, sorted by name (as the Prometheus client does).
func (r *Registry) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, f := range r.gather() {
		buf = appendFamily(buf[:0], f)
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("prom: write %s: %w", f.desc.name, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("prom: write: %w", err)
	}
	return nil
}

func appendFamily(b []byte, f *family) []byte {
	d := f.desc
	if d.help != "" {
		b = append(b, "# HELP "...)
		b = append(b, d.name...)
		b = append(b, ' ')
		b = appendEscaped(b, d.help, false)
		b = append(b, '\n')
	}
	b = append(b, "# TYPE "...)
	b = append(b, d.name...)
	b = append(b, ' ')
	b = append(b, d.typ...)
	b = append(b, '\n')
	for _, s := range f.samples {
		switch {
		case s.dist == nil:
			b = appendSample(b, d.name, "", s.labels, "", 0, s.value, false)
		case d.typ == HistogramType:
			for i, bound := range s.dist.bounds {
				b = appendSample(b, d.name, "_bucket", s.labels, "le", bound, float64(s.dist.counts[i]), true)
			}
			b = appendSample(b, d.name, "_bucket", s.labels, "le", math.Inf(1), float64(s.dist.count), true)
			b = appendSample(b, d.name, "_sum", s.labels, "", 0, s.dist.sum, false)
			b = appendSample(b, d.name, "_count", s.labels, "", 0, float64(s.dist.count), true)
		default: // summary
			for i, q := range s.dist.quantiles {
				b = appendSample(b, d.name, "", s.labels, "quantile", q, s.dist.values[i], false)
			}
			b = appendSample(b, d.name, "_sum", s.labels, "", 0, s.dist.sum, false)
			b = appendSample(b, d.name, "_count", s.labels, "", 0, float64(s.dist.count), true)
		}
	}
	return b
}

// appendSample writes `name+suffix{labels[,extra="x"]} value`; integer
// writes value as a count.
func appendSample(b []byte, name, suffix string, labels []labelPair, extra string, x, value float64, integer bool) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 || extra != "" {
		b = append(b, '{')
		for i, l := range labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, l.name...)
			b = append(b, `="`...)
			b = appendEscaped(b, l.value, true)
			b = append(b, '"')
		}
		if extra != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = append(b, extra...)
			b = append(b, `="`...)
			b = appendFloat(b, x)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	if integer {
		b = strconv.AppendUint(b, uint64(value), 10)
	} else {
		b = appendFloat(b, value)
	}
	return append(b, '\n')
}

// appendFloat formats as the Prometheus client does: +Inf, -Inf, NaN,
// else the shortest representation.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 1:
		return append(b, '1')
	case f == 0:
		return append(b, '0')
	case f == -1:
		return append(b, "-1"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendEscaped escapes a backslash and a line feed (help), and a double
// quote too in a label value.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// Handler serves r in the text format, gzipped when the client accepts
// it. The first call registers promhttp_metric_handler_errors_total
// (cause: encoding, gathering), as the Prometheus client's handler does;
// every call returns the same handler.
func (r *Registry) Handler() http.Handler {
	r.handlerOnce.Do(func() {
		errs := NewCounterVec("promhttp_metric_handler_errors_total",
			"Total number of internal errors encountered by the promhttp metric handler.", "cause")
		errs.With("encoding")
		errs.With("gathering")
		_ = r.Register(errs) // taken only if a collector registered the name first: the errors go uncounted
		r.handler = serveText(r, errs)
	})
	return r.handler
}

func serveText(r *Registry, errs *CounterVec) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", ContentType)
		var out io.Writer = w
		if acceptsGzip(req.Header.Get("Accept-Encoding")) {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			defer func() { _ = gz.Close() }()
			out = gz
		}
		if err := r.WriteText(out); err != nil {
			errs.With("encoding").Inc()
		}
	})
}

func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
