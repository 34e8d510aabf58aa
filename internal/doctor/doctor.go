// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package doctor checks, in one run, what an a2abus process needs and
// explains each finding: the broker (reachable, version, consumer_timeout,
// this user's permissions), Redis (reachable, version, eviction policy,
// persistence), the well-known file, the model endpoint, the URLs that
// apply and the identity mode (`a2abus doctor`).
package doctor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	// Pass: as it should be.
	Pass Status = "pass"
	// Warn: works, but deserves a look (or could not be checked).
	Warn Status = "warn"
	// Fail: a2abus will not work as configured.
	Fail Status = "fail"
)

// DefaultCheckTimeout bounds each check that talks to a server.
const DefaultCheckTimeout = 5 * time.Second

// Check is one finding: what was checked and what was found.
type Check struct {
	// Name names the check: "broker reachable", "redis eviction", ….
	Name string `json:"name"`
	// Status is its outcome.
	Status Status `json:"status"`
	// Detail explains it: what was found and, unless it passed, what to do.
	Detail string `json:"detail"`
}

// Report is the findings of one run.
type Report struct {
	// OK is true when no check failed (warnings allowed).
	OK bool `json:"ok"`
	// Passed, Warned and Failed count the checks of each outcome.
	Passed int `json:"passed"`
	Warned int `json:"warned"`
	Failed int `json:"failed"`
	// Checks are the findings, in the order they were made.
	Checks []Check `json:"checks"`
}

// Options tunes a run; the zero value is usable.
type Options struct {
	// CheckTimeout bounds each check that talks to a server; 0 means DefaultCheckTimeout.
	CheckTimeout time.Duration
	// HTTP is the client of the model endpoint and the management API; nil
	// means a client of its own.
	HTTP *http.Client
	// ManagementURL is RabbitMQ's management API (http://host:15672);
	// empty means the bus URL's host on ManagementPort, with its user.
	ManagementURL string
}

// Run makes every check with the configuration l resolved, each bounded by
// opts.CheckTimeout, and returns the findings.
func Run(ctx context.Context, l *cliutil.Loaded, opts Options) Report {
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{}
	}
	r := &run{l: l, opts: opts}
	r.setup()
	r.broker(ctx)
	r.redis(ctx)
	r.wellKnown()
	r.model(ctx)
	rep := Report{Checks: r.checks}
	for _, c := range r.checks {
		switch c.Status {
		case Pass:
			rep.Passed++
		case Warn:
			rep.Warned++
		default:
			rep.Failed++
		}
	}
	rep.OK = rep.Failed == 0
	return rep
}

// run collects the checks of one Run.
type run struct {
	l      *cliutil.Loaded
	opts   Options
	checks []Check
}

func (r *run) add(name string, s Status, format string, args ...any) {
	r.checks = append(r.checks, Check{Name: name, Status: s, Detail: fmt.Sprintf(format, args...)})
}

// bounded is ctx bounded by the check timeout.
func (r *run) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.opts.CheckTimeout)
}

// marks are the signs WriteText puts before each check.
var marks = map[Status]string{Pass: "✓", Warn: "!", Fail: "✗"}

// WriteText writes one line per check, "✓/!/✗ name — detail", then a summary.
func (rep Report) WriteText(w io.Writer) error {
	for _, c := range rep.Checks {
		if _, err := fmt.Fprintf(w, "%s %s — %s\n", marks[c.Status], c.Name, cliutil.Printable(c.Detail)); err != nil {
			return fmt.Errorf("print report: %w", err)
		}
	}
	verdict := "all checks passed"
	switch {
	case !rep.OK:
		verdict = "a2abus will not work as configured"
	case rep.Warned > 0:
		verdict = "a2abus works; the warnings deserve a look"
	}
	if _, err := fmt.Fprintf(w, "\n%d passed, %d warning(s), %d failed: %s\n", rep.Passed, rep.Warned, rep.Failed, verdict); err != nil {
		return fmt.Errorf("print report: %w", err)
	}
	return nil
}
