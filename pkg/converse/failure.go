// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// failure records a failed call: the conversation ends in error on a
// failure a retry cannot mend or on the max_failures-th in a row; else the
// step is tried again.
func (d *driver) failure(ctx context.Context, phase, taskID string, took time.Duration, err error) error {
	c, p := d.c, d.c.Pending
	c.Failures++
	reason := redact.String(err.Error())
	var ae *a2a.Error
	// max_failures is the conversation's explicit bound: work that failed is tried again.
	retryable := errors.As(err, &ae) && ae.ShouldRetry(a2a.RetryFailedWork)
	d.audit(phase, taskID, took, "ERROR", reason, nil)
	d.emit(EventFailure, fmt.Sprintf("%s call failed (%d in a row): %s", phase, c.Failures, reason), "")
	if phase == "remote" && p.RemoteTaskID != "" {
		c.FailedSends = append(c.FailedSends, p.RemoteTaskID)
	}
	switch {
	case phase == "local" && localUnavailable(err):
		c.Cause = CauseLocalUnavailable
		return d.end(ctx, Failed, "", fmt.Sprintf("local agent %s is unavailable (%s); restart it, then resume the conversation (converse resume %s)", c.Spec.Local, reason, c.ID))
	case !retryable:
		return d.end(ctx, Failed, "", fmt.Sprintf("%s call failed: %s", phase, reason))
	case c.Failures >= c.Spec.Limits.MaxFailures:
		d.emit(EventLimit, fmt.Sprintf("limit reached: %d consecutive failures", c.Failures), LimitMaxFailures)
		return d.end(ctx, Failed, LimitMaxFailures, fmt.Sprintf("%d consecutive failures, the last: %s", c.Failures, reason))
	}
	if phase == "local" {
		p.LocalTaskID = ""
	} else {
		p.RemoteTaskID = ""
		c.State = ReadyToSend // the same draft goes again, as the next attempt
	}
	if err := d.save(ctx); err != nil {
		return err
	}
	return d.backOff(ctx, callBackoff.Delay(c.Failures-1))
}

// localUnavailable reports whether a draft request's failure says the
// local agent is not there to answer — not running, crashed or hung past
// the local timeout (TIMEOUT), never started in time (EXPIRED_IN_QUEUE),
// unknown (AGENT_NOT_FOUND), or out of reach (UNAVAILABLE) — which a
// person must mend: the protocol ends the
// conversation in error rather than retry it silently.
func localUnavailable(err error) bool {
	switch a2a.CodeOf(err) {
	case a2a.CodeTimeout, a2a.CodeExpiredInQueue, a2a.CodeUnavailable, a2a.CodeAgentNotFound:
		return true
	}
	return false
}

// callBackoff is the wait before a failed call is made again.
var callBackoff = backoff.Policy{Min: 500 * time.Millisecond, Max: 5 * time.Second}

// backOff waits up to wait (not past max_duration), or until a control
// wakes the driver or ctx ends.
func (d *driver) backOff(ctx context.Context, wait time.Duration) error {
	return d.pause(ctx, min(wait, max(time.Until(d.deadline()), 0)))
}
