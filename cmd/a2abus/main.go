// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command a2abus is the a2abus CLI and daemon: it runs agents, invokes them,
// inspects the directory and working memory, and manages the bus topology.
package main

import (
	"io"
	"os"

	"github.com/a2abus/a2abus/internal/cliutil"
)

func main() {
	cliutil.TuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code (see
// cliutil.Execute: errors are printed once as "a2abus: <error>", a joined
// error one line per error; SIGINT and SIGTERM cancel the command's context).
func run(args []string, stdout, stderr io.Writer) int {
	return cliutil.Execute(newRootCmd(stdout, stderr), args, stderr)
}
