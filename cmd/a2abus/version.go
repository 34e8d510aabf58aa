// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import "github.com/a2abus/a2abus/internal/cliutil"

// Set at build time (scripts/release.sh, make build): go build -ldflags
// "-X main.version=v1.2.3 -X main.commit=abc1234 -X main.date=2026-11-26T18:03:00Z".
var (
	version = "dev"
	commit  = "dev"
	date    = "unknown"
)

// build is what was stamped in, for `a2abus version` and --version.
func build() cliutil.Build {
	return cliutil.Build{Version: version, Commit: commit, Date: date}
}
