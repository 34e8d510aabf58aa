// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestOpsValidation(t *testing.T) {
	cases := []struct {
		listen string
		pprof  bool
		ratio  float64
		bad    string // the key named in the error; "" for valid
	}{
		{"", false, 0.1, ""},
		{":9090", true, 1, ""},
		{"127.0.0.1:0", false, 0, ""},
		{"", true, 0.1, "ops.pprof"},
		{"9090", false, 0.1, "ops.listen"},
		{"localhost:http", false, 0.1, "ops.listen"},
		{"localhost:70000", false, 0.1, "ops.listen"},
		{"", false, 1.5, "ops.trace_sample_ratio"},
		{"", false, -0.1, "ops.trace_sample_ratio"},
		{"", false, math.NaN(), "ops.trace_sample_ratio"},
	}
	for _, c := range cases {
		cfg := Default()
		cfg.Ops = OpsConfig{Listen: c.listen, PProf: c.pprof, TraceSampleRatio: c.ratio}
		err := cfg.Validate()
		if c.bad == "" {
			if err != nil {
				t.Errorf("%+v: %v", cfg.Ops, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.bad) {
			t.Errorf("%+v: %v, want an error naming %s", cfg.Ops, err, c.bad)
		}
	}
	if Default().Ops.Enabled() {
		t.Error("the ops listener is on by default")
	}
}
