// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The dashboard and the alert rules of deploy/observability.
const (
	dashboardFile  = "../../deploy/observability/dashboard.json"
	alertRulesFile = "../../deploy/observability/alerts.yaml"
)

// registeredNames lists the metric names an Ops with metrics registers:
// every family its registry describes (the Go and process families, and
// the a2abus vectors without a series yet).
func registeredNames(t *testing.T) map[string]bool {
	t.Helper()
	o, err := New(Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range o.Registry().Descs() {
		names[d.Name()] = true
	}
	if !names["a2abus_tasks_received_total"] || !names["go_goroutines"] {
		t.Fatalf("the registry's names are missing the known ones: %v", names)
	}
	return names
}

var (
	promQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promBraces = regexp.MustCompile(`\{[^{}]*\}|\[[^\[\]]*\]`)
	// promGrouping is a label list: by (...), without (...), on (...) …
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	// promIdent is an identifier, not the tail of a number or duration (1e3, 1h).
	promIdent    = regexp.MustCompile(`(?:^|[^A-Za-z0-9_:.])([A-Za-z_:][A-Za-z0-9_:]*)`)
	promKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true, "without": true,
		"on": true, "ignoring": true, "group_left": true, "group_right": true, "inf": true, "nan": true}
)

// metricNames returns the metric names a PromQL expression reads: its
// identifiers once strings, label matchers, ranges and grouping lists are
// removed, except function names (followed by '(') and keywords.
func metricNames(expr string) []string {
	e := promQuoted.ReplaceAllString(expr, `""`)
	for prev := ""; prev != e; {
		prev, e = e, promBraces.ReplaceAllString(e, " ")
	}
	e = promGrouping.ReplaceAllString(e, " ")
	var out []string
	for _, m := range promIdent.FindAllStringSubmatchIndex(e, -1) {
		name, call := e[m[2]:m[3]], strings.HasPrefix(strings.TrimLeft(e[m[3]:], " \t\n"), "(")
		if !call && !promKeywords[strings.ToLower(name)] {
			out = append(out, name)
		}
	}
	return out
}

func TestMetricNamesOfAnExpression(t *testing.T) {
	got := metricNames(`histogram_quantile(0.99, sum by (agent, le) (rate(a2abus_task_duration_seconds_bucket{agent=~"x|y", code!="by(z)"}[5m])))
		/ on (agent) group_left sum without (instance) (a2abus_calls_in_flight) > bool 3 unless time() - process_start_time_seconds offset 1h`)
	want := []string{"a2abus_task_duration_seconds_bucket", "a2abus_calls_in_flight", "process_start_time_seconds"}
	if !slices.Equal(got, want) {
		t.Fatalf("metricNames = %q, want %q", got, want)
	}
}

// checkExpr fails t unless expr reads at least one metric and every one it
// reads is registered (a histogram's series by its _bucket, _sum or _count).
func checkExpr(t *testing.T, where, expr string, registered map[string]bool) {
	t.Helper()
	names := metricNames(expr)
	if len(names) == 0 {
		t.Errorf("%s: %q reads no metric", where, expr)
	}
	for _, n := range names {
		base := n
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(n, suffix); ok && registered[b] {
				base = b
			}
		}
		if !registered[base] {
			t.Errorf("%s: %q reads %s, which a2abus does not register", where, expr, n)
		}
	}
}

// alertRules is the shape of a Prometheus rule file, read strictly.
type alertRules struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// TestAlertRules: deploy/observability/alerts.yaml is a rule file whose
// alerts each have a name, a severity, a summary and a valid for, and
// whose expressions read only metrics a2abus registers.
func TestAlertRules(t *testing.T) {
	registered := registeredNames(t)
	raw, err := os.ReadFile(alertRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var rules alertRules
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("%s: %v", alertRulesFile, err)
	}
	seen, n := map[string]bool{}, 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			n++
			where := alertRulesFile + ": " + g.Name + "/" + r.Alert
			if r.Alert == "" || seen[r.Alert] {
				t.Errorf("%s: an alert needs a name of its own", where)
			}
			seen[r.Alert] = true
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("%s: severity %q, want warning or critical", where, s)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: a summary and a description are needed", where)
			}
			if d, err := time.ParseDuration(r.For); r.For != "" && (err != nil || d <= 0) {
				t.Errorf("%s: for %q is not a duration", where, r.For)
			}
			checkExpr(t, where, r.Expr, registered)
		}
	}
	if n == 0 {
		t.Fatalf("%s holds no rule", alertRulesFile)
	}
}

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	Title  string `json:"title"`
	UID    string `json:"uid"`
	Panels []struct {
		Title   string `json:"title"`
		Type    string `json:"type"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// labelValues is a template variable's query: label_values(metric, label).
var labelValues = regexp.MustCompile(`^label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,\s*[A-Za-z_][A-Za-z0-9_]*\s*\)$`)

// TestDashboard: deploy/observability/dashboard.json is a Grafana
// dashboard whose every panel but rows queries, and whose every query and
// template variable reads only metrics a2abus registers.
func TestDashboard(t *testing.T) {
	registered := registeredNames(t)
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: title %q, uid %q, %d panels", dashboardFile, d.Title, d.UID, len(d.Panels))
	}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", dashboardFile, p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, dashboardFile+": "+p.Title, q.Expr, registered)
		}
	}
	for _, v := range d.Templating.List {
		q, _ := v.Query.(string)
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(q)
		if m == nil || !registered[m[1]] {
			t.Errorf("%s: variable %s queries %q: want label_values(<a registered metric>, <label>)", dashboardFile, v.Name, q)
		}
	}
}
