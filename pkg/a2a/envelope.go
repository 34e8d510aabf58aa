// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"strings"
	"time"
)

// Header names and the content type of every bus message.
const (
	HeaderVersion     = "a2a-version"
	HeaderTraceParent = "traceparent"
	HeaderTraceState  = "tracestate"
	ContentTypeJSON   = "application/json"
)

// Envelope is a bus message as the protocol sees it: the AMQP properties
// a2abus uses and the JSON body. bus.Message embeds it as it is, beside
// what only the transport knows (the routing key, persistence, the
// publisher's user), so nothing converts or copies it on the way.
type Envelope struct {
	Kind          Kind          // AMQP type
	MessageID     string        // AMQP message_id: unique, consumers are idempotent on it
	CorrelationID string        // AMQP correlation_id: the task id
	ReplyTo       string        // AMQP reply_to: agent.response.<caller> on requests
	ContentType   string        // AMQP content_type: application/json
	Priority      uint8         // AMQP priority, from the request's priority
	Expiration    time.Duration // AMQP expiration: the request's time left to its deadline; 0 = none
	Timestamp     time.Time     // AMQP timestamp
	Headers       map[string]string
	Body          []byte
}

// Trace is the W3C trace context carried in the traceparent/tracestate headers.
type Trace struct {
	Parent string
	State  string
}

// Valid reports whether t.Parent is a well-formed W3C traceparent:
// version-traceid-parentid-flags in lowercase hex (2, 32, 16 and 2 digits),
// the version not ff and neither id all zeros. It is checked on every
// message, so it allocates nothing.
func (t Trace) Valid() bool {
	p := t.Parent
	if len(p) != 55 || p[2] != '-' || p[35] != '-' || p[52] != '-' {
		return false
	}
	version, traceID, parentID, flags := p[:2], p[3:35], p[36:52], p[53:]
	return lowerHex(version) && version != "ff" && lowerHex(flags) &&
		lowerHex(traceID) && strings.Trim(traceID, "0") != "" &&
		lowerHex(parentID) && strings.Trim(parentID, "0") != ""
}

// lowerHex reports whether s is made of lowercase hexadecimal digits only.
func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// TraceOf returns the envelope's trace context, or the zero Trace when its
// traceparent is absent or malformed (W3C: an invalid parent is ignored).
func TraceOf(env Envelope) Trace {
	t := Trace{Parent: env.Headers[HeaderTraceParent], State: env.Headers[HeaderTraceState]}
	if !t.Valid() {
		return Trace{}
	}
	return t
}
