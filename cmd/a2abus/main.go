// Command a2abus is the a2abus CLI and daemon: it runs agents, invokes them,
// inspects the directory and working memory, and manages the bus topology.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2abus/a2abus/internal/cliutil"
)

func main() {
	cliutil.TuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code. Errors are
// printed once as "a2abus: <error>", a joined error one line per error. SIGINT and SIGTERM cancel the
// command's context.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code, err = ee.code, ee.err
		}
		errs := []error{err}
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = joined.Unwrap() // one line per bad key, each with the prefix
		}
		for _, e := range errs {
			fmt.Fprintf(stderr, "a2abus: %v\n", e)
		}
		return code
	}
	return 0
}

// exitError makes run exit with code instead of 1 (e.g. 2: the invoked task failed).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
