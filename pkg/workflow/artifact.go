// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"encoding/json"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// ReportArtifactID is the id of the artifact that carries a Report in a
// task result (the Orchestrator agent's).
const ReportArtifactID = "workflow-report"

// ReportArtifact is rep as an artifact: one data part holding the report's JSON.
func ReportArtifact(rep *Report) (*a2a.Artifact, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &a2a.Artifact{ID: ReportArtifactID, Name: "workflow report", Parts: []*a2a.Part{a2a.NewDataPart(m)}}, nil
}

// ReportFrom returns the Report carried by artifacts (see ReportArtifact);
// ok is false when none does.
func ReportFrom(artifacts []*a2a.Artifact) (rep *Report, ok bool) {
	for _, a := range artifacts {
		if a == nil || a.ID != ReportArtifactID {
			continue
		}
		data := firstData([]*a2a.Artifact{a})
		if data == nil {
			continue
		}
		rep = &Report{}
		if json.Unmarshal(data, rep) == nil && rep.RunID != "" {
			return rep, true
		}
	}
	return nil, false
}

// ResultStatus is the request/response contract's status of a run's
// outcome: SUCCESS, PARTIAL or ERROR.
func (s Status) ResultStatus() a2a.ResultStatus {
	switch s {
	case StatusSuccess:
		return a2a.StatusSuccess
	case StatusPartial:
		return a2a.StatusPartial
	}
	return a2a.StatusError
}

// Err is the failure of an ERROR run as an *a2a.Error, nil for any other
// status: the failed step's error code (EXECUTION_FAILED for a group that
// missed its quorum, and for a step canceled by someone else: CANCELED
// would say the run's own task was) and a message naming the workflow, the
// run, the step and why it failed — what the Orchestrator answers a failed
// run with.
func (r *Report) Err() *a2a.Error {
	if r.Status != StatusError {
		return nil
	}
	e := a2a.NewError(a2a.CodeExecutionFailed, "workflow %s run %s: %s", r.Workflow, r.RunID, r.Error)
	for _, s := range r.Steps {
		if s.ID == r.FailedStep && s.Error != nil && s.Error.Code != "" && s.Error.Code != a2a.CodeCanceled {
			e.Code, e.Retryable = s.Error.Code, s.Error.Retryable
		}
	}
	return e
}
