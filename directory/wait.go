// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// DefaultWellKnownWait is the default of Options.WellKnownWait: how long a
// task for a well-known agent (one that may not be running: a KEDA job
// that starts for it) may wait in its queue to be taken, apart from the
// time it may run (directory.well_known_wait).
const DefaultWellKnownWait = 10 * time.Minute

// Wait returns the entry's own wait bound (its waitTimeout) and whether it
// has one; "0s" says the entry's tasks get no wait bound apart from their
// timeout.
func (a *WellKnownAgent) Wait() (time.Duration, bool) {
	if a.WaitTimeout == "" {
		return 0, false
	}
	d, err := time.ParseDuration(a.WaitTimeout)
	return d, err == nil && d >= 0
}

// validateWait is the reason the entry's waitTimeout is wrong, or "".
func (a *WellKnownAgent) validateWait() string {
	if a.WaitTimeout == "" {
		return ""
	}
	d, err := time.ParseDuration(a.WaitTimeout)
	switch {
	case err != nil:
		return fmt.Sprintf("waitTimeout: %q is not a duration (like \"10m\" or \"90s\")", a.WaitTimeout)
	case d < 0:
		return fmt.Sprintf("waitTimeout: %s must not be negative", a.WaitTimeout)
	}
	return ""
}

// WaitBound returns how long a task for agent may wait in its queue to be
// taken when the call names no bound: a well-known agent's waitTimeout,
// else Options.WellKnownWait; ok is false for an agent that is not
// well-known (the caller's own default applies). It satisfies
// caller.WaitBounds.
func (d *Directory) WaitBound(agent string) (wait time.Duration, ok bool) {
	for i := range d.opts.WellKnown {
		wk := &d.opts.WellKnown[i]
		if !a2a.SameAgent(wk.AgentName, agent) {
			continue
		}
		if w, ok := wk.Wait(); ok {
			return w, true
		}
		return d.opts.WellKnownWait, true
	}
	return 0, false
}

// WaitBound is the directory's WaitBound.
func (r PatientResolver) WaitBound(agent string) (time.Duration, bool) {
	return r.Directory.WaitBound(agent)
}
