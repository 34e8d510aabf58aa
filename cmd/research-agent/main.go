// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command research-agent runs ResearchAgent, the one-shot reference agent
// of a2abus for KEDA ScaledJobs: it answers one research task — searching
// the web when research.search_url is set, else the documents under --docs
// (research.docs_dir) — and exits; --ephemeral=false
// keeps it running. SIGINT or SIGTERM stops it gracefully; it exits 0 on a
// clean stop, 1 on failure.
package main

import (
	"io"
	"os"

	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/agents/research/web"
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
	cliutil.TuneGCTo(cliutil.OneShotGCPercent)
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run executes the command line args and returns the exit code. The
// binary links the web backend, but no model client, OTLP exporter nor
// JSON Schema validator: ResearchAgent declares no input schema and calls
// no one (docs/architecture.md#optional-parts).
func run(args []string, stderr io.Writer) int {
	ops.SetBuild(version, commit)
	web.Register()
	return cliutil.Execute(agents.ResearchCommand(cliutil.Build{Version: version, Commit: commit, Date: date}), args, stderr)
}
