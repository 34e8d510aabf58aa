// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	spec "github.com/a2aproject/a2a-go/v2/a2a"
)

// The codec's fastest writer: the two payloads of every call, task.request
// and task.result, written by hand as wirescan.go reads them. Its output is
// byte for byte what encoding/json writes for their mirrors (wire.go), key
// order included: the payload's own fields in their order, then the
// mirrored ones (FuzzWireEncode holds the two equal). Where encoding/json
// would fail — a time it cannot write as RFC 3339, NaN or an infinity, a
// raw value that is not JSON, a value it cannot encode — the writer gives
// up and the payload is encoded the standard way, error and all. A value in
// a data part or a metadata map that is not one of the types encoding/json
// decodes into is written by json.Marshal.

// encodeTaskRequest writes v as json.Marshal writes its mirror; false when
// the writer gave up.
func encodeTaskRequest(v *TaskRequest) ([]byte, bool) {
	w := jsonWriter{b: make([]byte, 0, 384+messageSize(v.Message)+len(v.Input)+len(v.Handoff))}
	w.b = append(w.b, '{')
	w.str("taskId", v.TaskID)
	w.strOmit("contextId", v.ContextID)
	w.str("sessionId", v.SessionID)
	w.str("caller", v.Caller)
	w.str("target", v.Target)
	w.str("skill", v.Skill)
	w.raw("input", v.Input)
	w.strOmit("priority", string(v.Priority))
	w.time("deadline", v.Deadline)
	if !v.StartBy.IsZero() {
		w.time("startBy", v.StartBy)
	}
	w.strOmit("correlationId", v.CorrelationID)
	w.raw("handoff", v.Handoff)
	w.stringsOmit("callChain", v.CallChain)
	if v.AllowNestedCalls != nil {
		w.key("allowNestedCalls")
		w.boolean(*v.AllowNestedCalls)
	}
	if v.Stream {
		w.key("stream")
		w.boolean(true)
	}
	w.time("createdAt", v.CreatedAt)
	w.intOmit("turn", int64(v.Turn))
	if c := v.CallerContext; c != nil {
		w.key("callerContext")
		w.callerContext(c)
	}
	if v.AllowedTools != nil {
		w.key("allowedTools")
		w.strings(v.AllowedTools)
	}
	w.intOmit("maxContextTokens", int64(v.MaxContextTokens))
	w.key("message")
	w.message(v.Message)
	w.messagesOmit("history", v.History)
	w.messagesOmit("contextHistory", v.ContextHistory)
	w.b = append(w.b, '}')
	return w.b, !w.failed
}

// encodeTaskResult writes v as json.Marshal writes its mirror; false when
// the writer gave up.
func encodeTaskResult(v *TaskResult) ([]byte, bool) {
	w := jsonWriter{b: make([]byte, 0, 320+messageSize(v.Message))}
	w.b = append(w.b, '{')
	w.str("taskId", v.TaskID)
	w.str("agent", v.Agent)
	w.strOmit("status", string(v.Status))
	w.strOmit("confidence", string(v.Confidence))
	w.stringsOmit("warnings", v.Warnings)
	w.key("metadata")
	w.b = append(w.b, '{')
	w.intOmit("processingTimeMs", v.Metadata.ProcessingTimeMs)
	w.strOmit("agentVersion", v.Metadata.AgentVersion)
	w.intOmit("tokensUsed", v.Metadata.TokensUsed)
	w.objectOmit("extra", v.Metadata.Extra)
	w.b = append(w.b, '}')
	w.time("time", v.Time)
	if q := v.Question; q != nil {
		w.key("question")
		w.question(q)
	}
	w.intOmit("turn", int64(v.Turn))
	w.intOmit("attempt", int64(v.Attempt))
	w.str("state", v.State.String())
	if v.Message != nil {
		w.key("message")
		w.message(v.Message)
	}
	if len(v.Artifacts) > 0 {
		w.key("artifacts")
		list(&w, v.Artifacts, w.artifact)
	}
	w.b = append(w.b, '}')
	return w.b, !w.failed
}

// messageSize is about how many bytes m's text parts take.
func messageSize(m *Message) int {
	n := 0
	if m != nil {
		for _, p := range m.Parts {
			if p != nil {
				if t, ok := p.Content.(spec.Text); ok {
					n += len(t) + len(t)/8
				}
			}
		}
	}
	return n
}

// boolean writes true or false.
func (w *jsonWriter) boolean(b bool) {
	if b {
		w.b = append(w.b, "true"...)
	} else {
		w.b = append(w.b, "false"...)
	}
}

// message writes m as its mirror, wireMessage (nil as null).
func (w *jsonWriter) message(m *Message) {
	if m == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '{')
	w.str("messageId", m.ID)
	w.strOmit("contextId", m.ContextID)
	w.stringsOmit("extensions", m.Extensions)
	w.objectOmit("metadata", m.Metadata)
	w.key("parts")
	w.parts(m.Parts)
	if len(m.ReferenceTasks) > 0 {
		w.key("referenceTaskIds")
		list(w, m.ReferenceTasks, func(id spec.TaskID) { w.b = AppendJSONString(w.b, string(id)) })
	}
	w.str("role", m.Role.String())
	w.strOmit("taskId", string(m.TaskID))
	w.b = append(w.b, '}')
}

// messagesOmit writes a list of messages unless it is empty (omitempty).
func (w *jsonWriter) messagesOmit(k string, ms []*Message) {
	if len(ms) == 0 {
		return
	}
	w.key(k)
	list(w, ms, w.message)
}

// parts writes parts as their mirrors, wirePart, flattened as
// Part.MarshalJSON flattens them (nil as null).
func (w *jsonWriter) parts(ps spec.ContentParts) {
	list(w, ps, w.part)
}

// part writes one part as its mirror (nil as null).
func (w *jsonWriter) part(p *Part) {
	if p == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '{')
	switch c := p.Content.(type) {
	case spec.Text:
		w.str("text", string(c))
	case spec.Raw:
		w.key("raw")
		w.bytes([]byte(c))
	case spec.Data:
		w.key("data")
		w.anyValue(c.Value, 0)
	case spec.URL:
		w.strOmit("url", string(c))
	}
	w.strOmit("filename", p.Filename)
	w.strOmit("mediaType", p.MediaType)
	w.objectOmit("metadata", p.Metadata)
	w.b = append(w.b, '}')
}

// artifact writes a as its mirror, wireArtifact (nil as null).
func (w *jsonWriter) artifact(a *Artifact) {
	if a == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '{')
	w.str("artifactId", string(a.ID))
	w.strOmit("description", a.Description)
	w.stringsOmit("extensions", a.Extensions)
	w.objectOmit("metadata", a.Metadata)
	w.strOmit("name", a.Name)
	w.key("parts")
	w.parts(a.Parts)
	w.b = append(w.b, '}')
}

// callerContext writes a request's caller context.
func (w *jsonWriter) callerContext(c *CallerContext) {
	w.b = append(w.b, '{')
	if len(c.Messages) > 0 {
		w.key("messages")
		list(w, c.Messages, func(m ContextMessage) {
			w.b = append(w.b, '{')
			w.str("role", m.Role)
			w.str("text", m.Text)
			if !m.Time.IsZero() {
				w.time("time", m.Time)
			}
			w.b = append(w.b, '}')
		})
	}
	w.strOmit("key", c.Key)
	w.intOmit("count", int64(c.Count))
	w.b = append(w.b, '}')
}

// question writes a result's question.
func (w *jsonWriter) question(q *Question) {
	w.b = append(w.b, '{')
	w.str("text", q.Text)
	if len(q.Options) > 0 {
		w.key("options")
		list(w, q.Options, func(o Option) {
			w.b = append(w.b, '{')
			w.str("id", o.ID)
			w.str("label", o.Label)
			w.strOmit("description", o.Description)
			w.b = append(w.b, '}')
		})
	}
	w.raw("inputSchema", q.InputSchema)
	if a := q.Auth; a != nil {
		w.key("auth")
		w.b = append(w.b, '{')
		w.str("scheme", a.Scheme)
		w.strOmit("resource", a.Resource)
		w.stringsOmit("scopes", a.Scopes)
		w.strOmit("url", a.URL)
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, '}')
}
