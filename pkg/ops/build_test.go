// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"runtime"
	"testing"

	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// TestBuildInfo: an Ops with metrics reports a2abus_build_info 1 with the
// version and commit the binary recorded and the Go version; one without
// metrics registers nothing.
func TestBuildInfo(t *testing.T) {
	if b := ops.CurrentBuild(); b.Version == "" || b.Commit == "" {
		t.Fatalf("unset build %+v: want the module's or \"unknown\", never empty labels", b)
	}
	ops.SetBuild("v1.2.3", "abc1234")
	o, err := ops.New(ops.Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	families, err := promtest.Gather(o.Registry())
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range families {
		if f.GetName() != "a2abus_build_info" {
			continue
		}
		found = true
		m := f.GetMetric()
		if len(m) != 1 || m[0].GetGauge().GetValue() != 1 {
			t.Fatalf("a2abus_build_info = %v, want one gauge of 1", m)
		}
		labels := map[string]string{}
		for _, l := range m[0].GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		want := map[string]string{"version": "v1.2.3", "commit": "abc1234", "goversion": runtime.Version()}
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("label %s = %q, want %q (labels %v)", k, labels[k], v, labels)
			}
		}
	}
	if !found {
		t.Fatal("no a2abus_build_info among the metrics")
	}
	bare, err := ops.New(ops.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if families, _ := promtest.Gather(bare.Registry()); len(families) != 0 {
		t.Errorf("an Ops without metrics registered %d families", len(families))
	}
}
