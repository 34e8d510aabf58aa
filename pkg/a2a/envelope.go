package a2a

import (
	"regexp"
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
// a2abus uses and the JSON body. Transports map it to their own message type.
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

var traceParentRE = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// Valid reports whether t.Parent is a well-formed W3C traceparent.
func (t Trace) Valid() bool {
	m := traceParentRE.FindStringSubmatch(t.Parent)
	if m == nil || m[1] == "ff" {
		return false
	}
	return strings.Trim(m[2], "0") != "" && strings.Trim(m[3], "0") != ""
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
