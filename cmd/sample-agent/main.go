// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command sample-agent runs SampleAgent, the always-on reference agent of
// a2abus (echo, sleep, fail, npv, delegate), on the bus and working memory
// a2abus.yaml, A2ABUS_* variables and the flags name. SIGINT or SIGTERM
// stops it gracefully; it exits 0 on a clean stop, 1 on failure.
package main

import (
	"io"
	"os"

	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/ops"
)

// Set at build time (scripts/release.sh, make build): go build -ldflags
// "-X main.version=v1.2.3 -X main.commit=abc1234 -X main.date=2026-11-26T18:03:00Z".
var (
	version = "dev"
	commit  = "dev"
	date    = "unknown"
)

func main() {
	cliutil.TuneGC()
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run executes the command line args and returns the exit code. The
// binary links no JSON Schema validator (npv checks its own input against
// the schema it declares), model client nor OTLP exporter
// (docs/architecture.md#optional-parts).
func run(args []string, stderr io.Writer) int {
	ops.SetBuild(version, commit)
	return cliutil.Execute(agents.SampleCommand(cliutil.Build{Version: version, Commit: commit, Date: date}), args, stderr)
}
