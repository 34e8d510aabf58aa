// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

import (
	"errors"
	"strings"
	"testing"
)

func TestOpsValidation(t *testing.T) {
	cases := []struct {
		listen string
		pprof  bool
		bad    string // the key named in the error; "" for valid
	}{
		{"", false, ""},
		{":9090", true, ""},
		{"127.0.0.1:0", false, ""},
		{"", true, "ops.pprof"},
		{"9090", false, "ops.listen"},
		{"localhost:http", false, "ops.listen"},
		{"localhost:70000", false, "ops.listen"},
	}
	for _, c := range cases {
		cfg := Default()
		cfg.Ops = OpsConfig{Listen: c.listen, PProf: c.pprof}
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
