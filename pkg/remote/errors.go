// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// errStreamEnded: the remote's stream ended before the task ended its turn;
// the bridge reads the task again (transient).
var errStreamEnded = errors.New("the stream ended before the task ended its turn")

// busyTaskText is what an a2a-go server answers (an internal error, with
// no code of its own) to a message for a task whose previous turn is still
// finishing: it has sent input-required, but its executor has not yet
// returned. The task takes the message moments later, so it is transient.
const busyTaskText = "task execution is already in progress"

// retryable reports whether err is transient — a connection that failed
// or was cut, HTTP 429, 502, 503, 504, a stream cut short — and the least
// wait its answer asks for (429's Retry-After).
func retryable(err error) (wait time.Duration, transient bool) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0, false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter, se.Transient()
	}
	if errors.Is(err, errStreamEnded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		return 0, true
	}
	if strings.Contains(err.Error(), busyTaskText) {
		return 0, true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return 0, true // dial, read or write on the connection
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return 0, dns.IsTemporary || dns.IsTimeout
	}
	return 0, false
}

// maxErrorText bounds what a remote's error text adds to a bus error.
const maxErrorText = 2 << 10

// failure is the typed bus error of a call to the remote that failed for
// good (not transient, or retried until the deadline would pass): its code
// says what kind of failure it is, its message names the remote.
func (b *Bridge) failure(err error) *a2a.Error {
	code, what := a2a.CodeExecutionFailed, "failed"
	var se *StatusError
	switch {
	case errors.As(err, &se) && (se.Code == http.StatusUnauthorized || se.Code == http.StatusForbidden || se.Code == http.StatusProxyAuthRequired),
		errors.Is(err, spec.ErrUnauthenticated), errors.Is(err, spec.ErrUnauthorized):
		code, what = a2a.CodeForbidden, "refused the bridge's credential"
	case errors.As(err, &se) && se.Code == http.StatusTooManyRequests:
		code, what = a2a.CodeRateLimited, "is rate-limiting the bridge"
	case errors.As(err, &se):
		code, what = a2a.CodeUnavailable, "is unavailable"
	case errors.Is(err, spec.ErrInvalidParams), errors.Is(err, spec.ErrInvalidRequest), errors.Is(err, spec.ErrParseError),
		errors.Is(err, spec.ErrUnsupportedContentType):
		code, what = a2a.CodeInvalidInput, "refused the message"
	case errors.Is(err, errTooLarge):
		what = "answered too much"
	case errors.Is(err, errBadCard):
		what = "has no usable card"
	default:
		if _, transient := retryable(err); transient {
			code, what = a2a.CodeUnavailable, "is unreachable"
		}
	}
	return a2a.NewError(code, "remote agent %q (%s) %s: %s", b.name, b.cardURL, what, text.Cut(redact.String(err.Error()), maxErrorText))
}

// stateError is the bus error of a remote task that ended failed, rejected
// or canceled, quoting its status message.
func (b *Bridge) stateError(remoteTask spec.TaskID, st spec.TaskState, msg *spec.Message) *a2a.Error {
	why := text.Cut(a2a.MessageText(msg), maxErrorText)
	if why == "" {
		why = "(no message)"
	}
	code, what := a2a.CodeExecutionFailed, "failed the task"
	switch st {
	case spec.TaskStateRejected:
		what = "rejected the task"
	case spec.TaskStateCanceled:
		code, what = a2a.CodeCanceled, "canceled the task"
	}
	return a2a.NewError(code, "remote agent %q %s (remote task %s, %s): %s", b.name, what, remoteTask, st, why)
}

// deadlineError is the error of a call whose next attempt would come after
// the task's deadline: the last failure, typed.
func (b *Bridge) deadlineError(err error, attempts int) *a2a.Error {
	e := b.failure(err)
	e.Message = fmt.Sprintf("%s (%d attempts; no time left for another before the task's deadline)", e.Message, attempts)
	return e
}
