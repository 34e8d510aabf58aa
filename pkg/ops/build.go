// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// Build is what the running binary was built from: the labels of the
// a2abus_build_info gauge.
type Build struct {
	// Version is the stamped version (main.version, "dev" unstamped).
	Version string
	// Commit is the stamped commit (main.commit).
	Commit string
}

var build struct {
	mu  sync.Mutex
	set bool
	b   Build
}

// SetBuild records the version and commit the binary was stamped with;
// every Ops with metrics built afterwards reports them as
// a2abus_build_info. Each binary calls it once at start. A program that
// does not is reported with its module's version and VCS revision as the
// Go toolchain stamped them (debug.ReadBuildInfo).
func SetBuild(version, commit string) {
	build.mu.Lock()
	defer build.mu.Unlock()
	build.set, build.b = true, Build{Version: version, Commit: commit}
}

// CurrentBuild is what SetBuild recorded, else the module's version and
// VCS revision ("unknown" where the toolchain stamped none).
func CurrentBuild() Build {
	build.mu.Lock()
	defer build.mu.Unlock()
	if build.set {
		return build.b
	}
	b := Build{Version: "unknown", Commit: "unknown"}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				b.Commit = s.Value
			}
		}
	}
	return b
}

// newBuildInfo is the a2abus_build_info gauge: 1, labelled with b and the
// Go version, so that dashboards can join any metric to the build that
// emitted it.
func newBuildInfo(b Build) prom.Collector {
	g := prom.NewGaugeVec(Namespace+"_build_info", "Always 1; its labels are the binary's version, commit and Go version.",
		"version", "commit", "goversion")
	g.With(b.Version, b.Commit, runtime.Version()).Set(1)
	return g
}
