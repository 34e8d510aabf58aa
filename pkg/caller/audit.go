// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxHistoryError bounds the error message kept in a history entry and logged, in bytes.
const maxHistoryError = 512

// refusalWriteTimeout bounds the best-effort write of a refused call's history entry.
const refusalWriteTimeout = 2 * time.Second

// historyEntry is the call-history entry of a finalized task.
func (c *Caller) historyEntry(rec *Record, s *StoredResult) *HistoryEntry {
	end := s.StoredAt
	if end.IsZero() {
		end = c.opts.Now()
	}
	e := &HistoryEntry{
		Time: end, CreatedAt: rec.CreatedAt, TaskID: rec.TaskID, SessionID: rec.SessionID,
		Caller: rec.Caller, Target: rec.Target, Skill: rec.Skill, Chain: rec.Chain,
		Status: resultStatus(s), State: s.State, DurationMs: max(end.Sub(rec.CreatedAt), 0).Milliseconds(), Late: s.Late,
	}
	if s.Error != nil {
		e.Code, e.Error = s.Error.Code, safeMessage(s.Error.Message)
	} else if q := s.Question; q != nil {
		e.Output = resultText(s, q.Text, c.opts.PreviewRunes)
	} else {
		e.Output = resultText(s, resultPreview(s), c.opts.PreviewRunes)
	}
	e.Task = c.preview(requestText(rec.Message))
	return e
}

// resultText is text of s's answer as a preview of maxRunes: redacted,
// unless redactResult already redacted s.
func resultText(s *StoredResult, text string, maxRunes int) string {
	if s.redacted {
		return redact.Collapse(text, maxRunes)
	}
	return redact.Default().Preview(text, maxRunes)
}

// preview is s redacted and cut to Options.PreviewRunes.
func (c *Caller) preview(s string) string { return redact.Default().Preview(s, c.opts.PreviewRunes) }

// requestText is the text of a request's message, else its structured input.
func requestText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	if t := a2a.MessageText(m); t != "" {
		return t
	}
	for _, p := range m.Parts {
		if p == nil || p.Data() == nil {
			continue
		}
		if b, err := json.Marshal(redact.Default().Value(p.Data())); err == nil {
			return string(b)
		}
	}
	return ""
}

// resultStatus is the contract status of a finalized task: the agent's own,
// or derived from its state and error code.
func resultStatus(s *StoredResult) string {
	switch {
	case a2a.WaitsForInput(s.State):
		return HistoryWaiting
	case s.Error != nil && s.Error.Code.TimedOut(): // TIMEOUT, EXPIRED_IN_QUEUE
		return string(a2a.StatusTimeout)
	case s.Error != nil:
		return string(a2a.StatusError)
	case s.Status != "":
		return string(s.Status)
	case s.State == a2a.TaskStateCompleted:
		return string(a2a.StatusSuccess)
	}
	return string(a2a.StatusError)
}

// appendHistoryOps appends to ops the batch ops that record a finalized task in its
// session's call history (session/<sessionId>/calls/<taskId>, for
// AuditTTL) and export it to the audit stream, if any (exportOps). The
// history entry is idempotent: a redelivered response records nothing
// twice. The first outcome wins (set if absent), except a late result,
// which replaces the TIMEOUT the sweeper recorded — and a TIMEOUT recorded
// after a late result (the two finalizations race) never replaces it. rec
// comes from Invoke, which validated its session and task ids, so the op is
// always valid.
//
// A task that talks back has one entry too: WAITING while it waits for
// input, replaced by its outcome (replace: the writes of a turn's claim
// winner after turn 0).
func (c *Caller) appendHistoryOps(ops []memory.Op, e *HistoryEntry, replace bool) []memory.Op {
	key, _ := memory.CallHistoryKey(e.SessionID, e.TaskID) // validated by Invoke (ResultKey)
	b, record := e.encode(c.opts.AuditStreamMaxLen > 0)    // strings, times and ints only: cannot fail
	op := memory.SetIfAbsentOp(key, b, c.opts.AuditTTL)
	if replace || e.Late {
		op = memory.SetOp(key, b, c.opts.AuditTTL)
	}
	return c.appendExportOp(append(ops, op), record)
}

// auditRecord is an audit record as exported: the history entry with its kind.
type auditRecord struct {
	Kind string `json:"kind"`
	*HistoryEntry
}

// AuditKind is the "kind" of every exported audit record.
const AuditKind = "a2abus.audit"

// exportOps are the batch ops that export e to the audit stream, if any.
func (c *Caller) exportOps(e *HistoryEntry) []memory.Op {
	if c.opts.AuditStreamMaxLen <= 0 {
		return nil
	}
	_, record := e.encode(true) // cannot fail, as in appendHistoryOps
	return c.appendExportOp(nil, record)
}

// appendExportOp appends to ops the batch op that exports record, an audit
// record's JSON, to the audit stream, if any.
func (c *Caller) appendExportOp(ops []memory.Op, record []byte) []memory.Op {
	if c.opts.AuditStreamMaxLen <= 0 {
		return ops
	}
	return append(ops, memory.StreamAddOp(memory.AuditStreamKey, record, c.opts.AuditStreamMaxLen))
}

// writeAudit writes e as one JSON line to Options.AuditWriter, if set.
func (c *Caller) writeAudit(e *HistoryEntry) {
	if c.opts.AuditWriter == nil {
		return
	}
	_, b := e.encode(true)
	c.auditMu.Lock()
	_, err := c.opts.AuditWriter.Write(append(b, '\n'))
	c.auditMu.Unlock()
	if err != nil {
		c.log.Warn("audit record not written", zap.String("task", e.TaskID), zap.Error(err))
	}
}

// logOutcome writes the structured log line of a finalized task: task,
// session, target, skill, chain, state, status, code, duration, late and the
// redacted error (the caller and instance are on every line of c.log).
func (c *Caller) logOutcome(e *HistoryEntry) {
	ce := c.log.Check(zap.InfoLevel, "task finished")
	if ce == nil {
		return // not logged: spare building the fields
	}
	ce.Write(zap.String("task", e.TaskID), zap.String("session", e.SessionID),
		zap.String("target", e.Target), zap.String("skill", e.Skill), zap.Strings("chain", e.Chain),
		zap.String("state", string(e.State)), zap.String("status", e.Status), zap.String("code", string(e.Code)),
		zap.Duration("duration", e.Duration()), zap.Bool("late", e.Late), zap.String("error", e.Error))
}

// recordRefusal records a call Invoke refused with a typed error (any error
// with an a2a code: CYCLE_DETECTED, DEPTH_EXCEEDED, AGENT_NOT_FOUND,
// FORBIDDEN, BUSY, …) as an outcome: one log line, and an entry with a task
// id of its own and status REFUSED in the session's call history when the
// session is known (given, or inherited from the task ctx carries). The
// write is best effort and bounded: a refusal is never delayed long nor
// turned into another error.
func (c *Caller) recordRefusal(ctx context.Context, req Request, err error) {
	var ae *a2a.Error
	if err == nil || !errors.As(err, &ae) {
		return
	}
	session, chain := req.SessionID, req.CallChain
	if parent, _, nested := a2a.TaskFromContext(ctx); nested {
		if session == "" {
			session = parent.SessionID
		}
		if chain == nil {
			chain = parent.CallChain
		}
	}
	c.observeRefused(req, ae.Code)
	now := c.opts.Now()
	e := &HistoryEntry{
		Time: now, CreatedAt: now, TaskID: uuid.NewString(), SessionID: session, Caller: c.opts.Name,
		Target: text.Cut(req.Target, 128), Skill: text.Cut(req.Skill, 128), Chain: append(slices.Clone(chain), c.opts.Name),
		Status: HistoryRefused, State: a2a.TaskStateRejected, Code: ae.Code, Error: safeMessage(ae.Message),
		Task: c.preview(req.Text),
	}
	c.writeAudit(e)
	c.log.Info("call refused", zap.String("task", e.TaskID), zap.String("session", e.SessionID),
		zap.String("target", e.Target), zap.String("skill", e.Skill), zap.Strings("chain", e.Chain),
		zap.String("status", e.Status), zap.String("code", string(e.Code)), zap.String("error", e.Error))
	key, kerr := memory.CallHistoryKey(session, e.TaskID)
	if kerr != nil || errors.Is(err, ErrSessionNotOwned) { // not in another's session either
		return // no session (or an invalid one): nowhere to record it
	}
	b, _ := e.encode(false)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refusalWriteTimeout)
	defer cancel()
	if _, werr := c.opts.Memory.Batch(wctx, append([]memory.Op{memory.SetOp(key, b, c.opts.AuditTTL)}, c.exportOps(e)...)...); werr != nil {
		c.log.Warn("refused call not recorded in the call history", zap.String("task", e.TaskID), zap.Error(werr))
	}
}

// safeMessage is msg redacted, then truncated (redacting first, so that a
// cut cannot hide a secret from the redactor).
func safeMessage(msg string) string { return text.Cut(redact.String(msg), maxHistoryError) }
