// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"errors"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Policy decides whether caller may have target run a task; a refusal is
// an error, an *a2a.Error with code FORBIDDEN at best. *guard.Guard
// (pkg/guard) is one.
type Policy interface {
	Authorize(caller, target string) error
}

// authorize returns the FORBIDDEN refusal of req's caller by Options.Policy,
// or nil. A refusal that is not a FORBIDDEN *a2a.Error becomes one.
func (a *Agent) authorize(req *a2a.TaskRequest) *a2a.Error {
	if a.opts.Policy == nil {
		return nil
	}
	err := a.opts.Policy.Authorize(req.Caller, a.Name())
	if err == nil {
		return nil
	}
	var typed *a2a.Error
	if errors.As(err, &typed) && typed.Code == a2a.CodeForbidden {
		return typed
	}
	return a2a.NewError(a2a.CodeForbidden, "%s may not call %s: %v", req.Caller, a.Name(), err)
}
