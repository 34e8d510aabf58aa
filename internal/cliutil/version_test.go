// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"runtime/debug"
	"testing"
)

func TestBuildFill(t *testing.T) {
	defaults := Build{Version: "dev", Commit: "dev", Date: "unknown"}
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/a2abus/a2abus", Version: "v1.2.3"}}
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-26T18:03:00Z"}}}
	stamped := Build{Version: "v0.3.0", Commit: "fedcba987654", Date: "2026-11-26T17:00:00Z"}
	for _, c := range []struct {
		name string
		b    Build
		info *debug.BuildInfo
		want Build
	}{
		{"no build information", defaults, nil, defaults},
		{"go install at a version", defaults, installed, Build{Version: "v1.2.3", Commit: "dev", Date: "unknown"}},
		{"go build in a checkout", defaults, checkout, Build{Version: "dev", Commit: "0123456789ab", Date: "2026-11-26T18:03:00Z"}},
		{"stamped wins", stamped, &debug.BuildInfo{Main: installed.Main, Settings: checkout.Settings}, stamped},
	} {
		if got := c.b.Fill(c.info); got != c.want {
			t.Errorf("%s: Fill = %+v, want %+v", c.name, got, c.want)
		}
	}
}
