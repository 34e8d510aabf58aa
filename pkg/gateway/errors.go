// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Refusal is how the gateway answers a bus error code that refuses a call
// before it is sent (the caller's checks, the guard): the A2A error, and
// the HTTP status that replaces the transport's own (0: keep it).
type Refusal struct {
	Err    error
	Status int
	// RetryAfter is the wait the answer's Retry-After header gives.
	RetryAfter time.Duration
}

// Refusals maps every refusal code of the bus to its answer; a code not
// listed is an internal error. docs/a2a-http.md has this table.
var Refusals = map[a2a.ErrorCode]Refusal{
	a2a.CodeForbidden:         {Err: spec.ErrUnauthorized, Status: http.StatusForbidden},
	a2a.CodeRateLimited:       {Err: spec.ErrServerError, Status: http.StatusTooManyRequests, RetryAfter: time.Second},
	a2a.CodeBusy:              {Err: spec.ErrServerError, Status: http.StatusTooManyRequests, RetryAfter: time.Second},
	a2a.CodeCircuitOpen:       {Err: spec.ErrServerError, Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second},
	a2a.CodeUnavailable:       {Err: spec.ErrServerError, Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second},
	a2a.CodeTimeout:           {Err: spec.ErrServerError, Status: http.StatusGatewayTimeout},
	a2a.CodeAgentNotFound:     {Err: spec.ErrInvalidParams},
	a2a.CodeSkillNotSupported: {Err: spec.ErrInvalidParams},
	a2a.CodeInvalidInput:      {Err: spec.ErrInvalidParams},
	a2a.CodeCycleDetected:     {Err: spec.ErrInvalidParams},
	a2a.CodeDepthExceeded:     {Err: spec.ErrInvalidParams},
	a2a.CodeTaskFinished:      {Err: spec.ErrUnsupportedOperation},
	a2a.CodeInvalidState:      {Err: spec.ErrUnsupportedOperation},
}

// errorInfoCode is the ErrorInfo metadata key that carries the bus's error code.
const errorInfoCode = "a2abusCode"

// refusal turns an error of the caller (Invoke, Reply, Cancel, Task, Wait)
// into the A2A error the client gets, and sets rq's HTTP status for the
// refusals that have one. Errors that are nobody's fault but the
// gateway's are logged and answered as internal errors, without detail.
func (g *Gateway) refusal(rq *request, what string, err error) error {
	var be *a2a.Error
	switch {
	case errors.Is(err, caller.ErrUnknownTask):
		return spec.NewError(spec.ErrTaskNotFound, "task not found")
	case errors.Is(err, caller.ErrInvalidRequest):
		return spec.NewError(spec.ErrInvalidParams, err.Error())
	case errors.Is(err, caller.ErrClosed):
		rq.reply.refuse(http.StatusServiceUnavailable, 5*time.Second)
		return spec.NewError(spec.ErrServerError, "the gateway is shutting down: retry on another replica")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return spec.NewError(spec.ErrServerError, what+": "+err.Error())
	case errors.As(err, &be):
		r, ok := Refusals[be.Code]
		if !ok {
			break
		}
		if r.Status != 0 {
			rq.reply.refuse(r.Status, r.RetryAfter)
		}
		return spec.NewError(r.Err, be.Error()).WithErrorInfoMeta(map[string]string{errorInfoCode: string(be.Code)})
	}
	g.log.Warn("gateway: request failed", zap.String("principal", rq.principal), zap.String("what", what), zap.Error(err))
	return errInternal(what + " failed inside the gateway (logged)")
}

func errInternal(msg string) error { return spec.NewError(spec.ErrInternalError, msg) }

func invalidParams(msg string) error { return spec.NewError(spec.ErrInvalidParams, msg) }
