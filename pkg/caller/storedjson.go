// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"encoding/json"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// The records the caller stores on every call — the task record, the
// stored result and the call history entry (with its audit record) —
// written by hand (a2a.ObjectWriter): byte for byte what encoding/json
// writes for them (encodeStd, json.Marshal), key order included, without
// reflection. Where encoding/json would fail (a time it cannot write),
// appendJSON reports false and the record is encoded the standard way,
// error and all. FuzzStoredJSON holds the two equal.

// appendJSON writes r as encodeStd does; false when the writer gave up.
func (r *Record) appendJSON() ([]byte, bool) {
	var o a2a.ObjectWriter
	o.Open()
	o.String("taskId", r.TaskID)
	o.String("caller", r.Caller)
	o.String("target", r.Target)
	o.String("skill", r.Skill)
	o.String("sessionId", r.SessionID)
	o.StringOmit("contextId", r.ContextID)
	o.String("memoryKey", r.MemoryKey)
	o.Time("deadline", r.Deadline)
	o.TimeOmitZero("startBy", r.StartBy)
	o.TimeOmitZero("sweepFrom", r.SweepFrom)
	o.Time("createdAt", r.CreatedAt)
	o.StringsOmit("chain", r.Chain)
	o.StringOmit("priority", string(r.Priority))
	o.StringOmit("correlationId", r.CorrelationID)
	o.RawOmit("handoff", r.Handoff)
	o.BoolPtrOmit("allowNestedCalls", r.AllowNestedCalls)
	o.BoolOmit("stream", r.Stream)
	o.CallerContextOmit("callerContext", r.CallerContext)
	o.StringsOmitZero("allowedTools", r.AllowedTools)
	o.IntOmit("maxContextTokens", int64(r.MaxContextTokens))
	// The mirrors encodeStd puts beside the embedded fields come last.
	o.MessageOmit("message", r.Message)
	o.MessagesOmit("contextHistory", r.ContextHistory)
	return o.Done()
}

// appendJSON writes s as encodeStd does; false when the writer gave up.
func (s *StoredResult) appendJSON() ([]byte, bool) {
	var o a2a.ObjectWriter
	o.Open()
	o.String("taskId", s.TaskID)
	o.String("agent", s.Agent)
	o.String("caller", s.Caller)
	o.String("sessionId", s.SessionID)
	o.String("skill", s.Skill)
	o.StringOmit("status", string(s.Status))
	o.StringOmit("confidence", string(s.Confidence))
	o.StringsOmit("warnings", s.Warnings)
	o.ResultMetadata("metadata", s.Metadata)
	o.ErrorOmit("error", s.Error)
	o.BoolOmit("late", s.Late)
	o.Time("storedAt", s.StoredAt)
	o.QuestionOmit("question", s.Question)
	o.IntOmit("turn", int64(s.Turn))
	o.StringOmit("contextId", s.ContextID)
	o.TimeOmitZero("answerBy", s.AnswerBy)
	// The mirrors encodeStd puts beside the embedded fields come last.
	o.String("state", s.State.String())
	o.MessageOmit("message", s.Message)
	o.ArtifactsOmit("artifacts", s.Artifacts)
	return o.Done()
}

// auditPrefix opens an audit record (auditRecord): its kind, then the
// history entry's members.
const auditPrefix = `{"kind":"` + AuditKind + `",`

// encode is the JSON of e as json.Marshal writes it, and, when audit is
// set, of its audit record (auditRecord) too; nil where json.Marshal fails
// (a time it cannot write), as json.Marshal's callers here had it.
func (e *HistoryEntry) encode(audit bool) (entry, record []byte) {
	b, ok := e.appendJSON()
	if !ok {
		entry, _ = json.Marshal(e)
		if audit {
			record, _ = json.Marshal(auditRecord{AuditKind, e})
		}
		return entry, record
	}
	if audit {
		record = make([]byte, 0, len(auditPrefix)+len(b)-1)
		record = append(append(record, auditPrefix...), b[1:]...)
	}
	return b, record
}

// appendJSON writes e as json.Marshal does; false when the writer gave up.
func (e *HistoryEntry) appendJSON() ([]byte, bool) {
	var o a2a.ObjectWriter
	o.Open()
	o.Time("time", e.Time)
	o.Time("createdAt", e.CreatedAt)
	o.String("taskId", e.TaskID)
	o.String("sessionId", e.SessionID)
	o.String("caller", e.Caller)
	o.String("target", e.Target)
	o.String("skill", e.Skill)
	o.StringsOmit("chain", e.Chain)
	o.String("status", e.Status)
	o.StringOmit("state", stateJSON(e.State)) // TaskState.MarshalJSON: String(), unless empty (omitempty)
	o.StringOmit("code", string(e.Code))
	o.StringOmit("error", e.Error)
	o.StringOmit("task", e.Task)
	o.StringOmit("output", e.Output)
	o.Int("durationMs", e.DurationMs)
	o.BoolOmit("late", e.Late)
	return o.Done()
}

// stateJSON is the string a2a.TaskState's MarshalJSON writes for s, or ""
// when omitempty leaves s out (it is empty).
func stateJSON(s a2a.TaskState) string {
	if s == "" {
		return ""
	}
	return s.String()
}
