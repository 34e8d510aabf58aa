// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// operationsDoc documents the metrics in its "### Metrics" section.
const operationsDoc = "../../docs/operations.md"

// registered lists every a2abus metric an Ops registers (the Go and process
// metrics aside): name without the a2abus_ prefix → labels.
func registered(t *testing.T) map[string][]string {
	t.Helper()
	reg := prom.NewRegistry()
	if _, err := newMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := newRemoteMetrics(reg); err != nil {
		t.Fatal(err)
	}
	for _, c := range []prom.Collector{newCollector(), newBuildInfo(Build{Version: "v", Commit: "c"})} {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string][]string{}
	for _, d := range reg.Descs() {
		out[strings.TrimPrefix(d.Name(), Namespace+"_")] = d.Labels()
	}
	return out
}

// metricRow is a row of the metrics table: | `name` | type | labels | what |.
var metricRow = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| (counter|gauge|histogram) \\|([a-z, ]*)\\| (.+) \\|$")

// documentedMetrics reads the table of operations.md's "### Metrics" section:
// name → labels.
func documentedMetrics(t *testing.T) map[string][]string {
	t.Helper()
	doc, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### Metrics\n")
	if !ok {
		t.Fatalf("%s has no \"### Metrics\" section", operationsDoc)
	}
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	out := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := metricRow.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: a metrics row that is not | `name` | counter, gauge or histogram | labels | what |: %s", operationsDoc, line)
			continue
		}
		if _, dup := out[m[1]]; dup {
			t.Errorf("%s lists the metric %s twice", operationsDoc, m[1])
		}
		var labels []string
		for _, l := range strings.Split(m[3], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
		out[m[1]] = labels
	}
	return out
}

// TestMetricsTableIsTheRegistry: operations.md's metrics table lists every
// metric pkg/ops registers, with its labels in order, and no other.
func TestMetricsTableIsTheRegistry(t *testing.T) {
	code, doc := registered(t), documentedMetrics(t)
	for name, labels := range code {
		got, ok := doc[name]
		if !ok {
			t.Errorf("metric a2abus_%s (labels %v) is not in %s's metrics table", name, labels, operationsDoc)
			continue
		}
		if !slices.Equal(got, labels) {
			t.Errorf("%s gives a2abus_%s the labels %v; it has %v", operationsDoc, name, got, labels)
		}
	}
	for name := range doc {
		if _, ok := code[name]; !ok {
			t.Errorf("%s lists a2abus_%s, which pkg/ops does not register", operationsDoc, name)
		}
	}
}
