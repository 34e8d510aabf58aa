// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"sync"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// DefaultConfidence is the confidence of a SUCCESS or PARTIAL result whose
// handler states none (Result.Confidence empty). The request/response
// contract requires one for both; a handler that knows better sets
// Result.Confidence, which always wins. LOW claims nothing the handler did
// not say: a caller that acts alone on MEDIUM or better (converse's
// semi_auto) still asks for review.
const DefaultConfidence = a2a.ConfidenceLow

// unstated remembers the skills whose handlers returned a result without a
// confidence, so that each is logged once per agent.
type unstated struct{ skills sync.Map }

// confidence is the confidence res is published with: its own, or for a
// SUCCESS or PARTIAL result without one DefaultConfidence (logged once per
// skill, naming the field to set).
func (a *Agent) confidence(skill string, status a2a.ResultStatus, res *Result) a2a.Confidence {
	if res.Confidence != "" || res.Question != nil || (status != a2a.StatusSuccess && status != a2a.StatusPartial) {
		return res.Confidence
	}
	if _, seen := a.unstated.skills.LoadOrStore(skill, true); !seen {
		a.log.Warn("skill returned a result without a confidence; it is published as the default (set agent.Result.Confidence)",
			zap.String("skill", skill), zap.String("status", string(status)), zap.String("confidence", string(DefaultConfidence)))
	}
	return DefaultConfidence
}
