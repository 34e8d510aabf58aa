// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTripEveryKind(t *testing.T) {
	c := testCodec()
	for _, p := range samplePayloads() {
		t.Run(string(p.Kind()), func(t *testing.T) {
			env, err := c.Encode(p, Trace{})
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if env.Kind != p.Kind() || env.ContentType != ContentTypeJSON || env.MessageID == "" {
				t.Fatalf("envelope properties: %+v", env)
			}
			if env.Headers[HeaderVersion] != ProtocolVersion {
				t.Fatalf("version header = %q", env.Headers[HeaderVersion])
			}
			got, err := c.Decode(env)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			want, _ := json.Marshal(p)
			have, _ := json.Marshal(got)
			if string(want) != string(have) {
				t.Fatalf("round trip changed the payload:\nwant %s\nhave %s", want, have)
			}
		})
	}
}

func TestEncodeRequestProperties(t *testing.T) {
	c := testCodec()
	tr := Trace{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", State: "vendor=1"}
	env, err := c.Encode(sampleRequest(), tr)
	if err != nil {
		t.Fatal(err)
	}
	if env.ReplyTo != "agent.response.Primary" {
		t.Errorf("reply_to = %q", env.ReplyTo)
	}
	if env.CorrelationID != "t-1" {
		t.Errorf("correlation_id = %q", env.CorrelationID)
	}
	if env.Priority != 9 {
		t.Errorf("priority = %d, want 9 for high", env.Priority)
	}
	if env.Expiration != 30*time.Second {
		t.Errorf("expiration = %v, want the 30s left to the deadline", env.Expiration)
	}
	if TraceOf(env) != tr {
		t.Errorf("trace = %+v", TraceOf(env))
	}
}

func TestEncodeRefuses(t *testing.T) {
	c := testCodec()
	expired := sampleRequest()
	expired.Deadline = testNow.Add(-time.Second)
	noSkill := sampleRequest()
	noSkill.Skill = ""
	big := sampleRequest()
	big.Message = NewTextMessage(MessageRoleUser, strings.Repeat("x", 2048))
	small := Codec{MaxBodyBytes: 1024, Now: c.Now}
	cases := []struct {
		name  string
		codec Codec
		p     Payload
		want  error
		field string
	}{
		{"nil", c, nil, ErrMissingField, ""},
		{"expired deadline", c, expired, ErrInvalidField, "deadline"},
		{"missing skill", c, noSkill, ErrInvalidField, "skill"},
		{"too large", small, big, ErrTooLarge, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.codec.Encode(tc.p, Trace{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.field != "" && !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("error %q does not name field %q", err, tc.field)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	c := testCodec()
	good, err := c.Encode(sampleRequest(), Trace{})
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*Envelope)) Envelope {
		e := good
		e.Headers = map[string]string{HeaderVersion: ProtocolVersion}
		f(&e)
		return e
	}
	body := func(mut func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good.Body, &m); err != nil {
			t.Fatal(err)
		}
		mut(m)
		b, _ := json.Marshal(m)
		return b
	}
	cases := []struct {
		name  string
		env   Envelope
		want  error
		names string // text the error must contain
	}{
		{"unknown kind", with(func(e *Envelope) { e.Kind = "task.bogus" }), ErrUnknownKind, `"task.bogus"`},
		{"malformed json", with(func(e *Envelope) { e.Body = []byte(`{"taskId":`) }), ErrMalformed, "byte"},
		{"empty body", with(func(e *Envelope) { e.Body = nil }), ErrMalformed, "empty body"},
		{"json null", with(func(e *Envelope) { e.Body = []byte(`null`) }), ErrInvalidField, `"taskId"`},
		{"wrong type", with(func(e *Envelope) { e.Body = []byte(`{"taskId":7}`) }), ErrInvalidField, `"taskId"`},
		{"missing skill", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { delete(m, "skill") }) }), ErrInvalidField, `"skill"`},
		{"missing message", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { delete(m, "message") }) }), ErrMissingField, `"message"`},
		{"missing deadline", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { delete(m, "deadline") }) }), ErrMissingField, `"deadline"`},
		{"dotted target", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { m["target"] = "a.#" }) }), ErrInvalidField, `"target"`},
		{"bad chain entry", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { m["callChain"] = []string{"A", "*"} }) }), ErrInvalidField, `"callChain[1]"`},
		{"bad priority", with(func(e *Envelope) { e.Body = body(func(m map[string]any) { m["priority"] = "urgent" }) }), ErrInvalidField, `"priority"`},
		{"empty part", with(func(e *Envelope) {
			e.Body = []byte(strings.Replace(string(good.Body), `{"text":"find the NPV rule"}`, `null`, 1))
		}), ErrMissingField, `"message.parts[0]"`},
		{"correlation mismatch", with(func(e *Envelope) { e.CorrelationID = "other" }), ErrInvalidField, `"other"`},
		{"content type", with(func(e *Envelope) { e.ContentType = "text/plain" }), ErrInvalidField, "content_type"},
		{"version", with(func(e *Envelope) { e.Headers[HeaderVersion] = "2.0" }), ErrInvalidField, `"2.0"`},
		{"oversize", with(func(e *Envelope) { e.Body = make([]byte, DefaultMaxBodyBytes+1) }), ErrTooLarge, "limit of 4194304 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Decode(tc.env)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Kind != string(tc.env.Kind) {
				t.Fatalf("err %v is not a *DecodeError for kind %q", err, tc.env.Kind)
			}
			if !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("error %q does not contain %q", err, tc.names)
			}
		})
	}
}

func TestDecodeAcceptsCharsetAndMinorVersion(t *testing.T) {
	c := testCodec()
	env, err := c.Encode(sampleRequest(), Trace{})
	if err != nil {
		t.Fatal(err)
	}
	env.ContentType = "application/json; charset=utf-8"
	env.Headers[HeaderVersion] = "1.3"
	if _, err := c.Decode(env); err != nil {
		t.Fatal(err)
	}
}

func TestValidateResultAndError(t *testing.T) {
	cases := []struct {
		name  string
		p     Payload
		field string
	}{
		{"result not terminal", &TaskResult{TaskID: "t", Agent: "A", State: TaskStateWorking, Message: NewTextMessage(MessageRoleAgent, "x")}, "state"},
		{"result empty", &TaskResult{TaskID: "t", Agent: "A", State: TaskStateCompleted}, "message"},
		{"result bad status", &TaskResult{TaskID: "t", Agent: "A", State: TaskStateCompleted, Status: "OK", Message: NewTextMessage(MessageRoleAgent, "x")}, "status"},
		{"result artifact id", &TaskResult{TaskID: "t", Agent: "A", State: TaskStateCompleted, Artifacts: []*Artifact{{Parts: []*Part{NewTextPart("x")}}}}, "artifacts[0].artifactId"},
		{"error lowercase code", &TaskError{TaskID: "t", Agent: "A", State: TaskStateFailed, Code: "oops", Message: "m"}, "code"},
		{"error no message", &TaskError{TaskID: "t", Agent: "A", State: TaskStateFailed, Code: CodeTimeout}, "message"},
		{"status unknown state", &TaskStatus{TaskID: "t", Agent: "A", State: "RUNNING"}, "state"},
		{"status progress", &TaskStatus{TaskID: "t", Agent: "A", State: TaskStateWorking, Progress: ptr(1.5)}, "progress"},
		{"announce dup skill", &Announcement{Card: &AgentCard{Name: "A", Skills: []AgentSkill{{ID: "s"}, {ID: "s"}}}, InstanceID: "i", Time: testNow}, "card.skills[1].id"},
		{"announce no card", &Announcement{InstanceID: "i", Time: testNow}, "card"},
		{"cancel bad target", &TaskCancel{TaskID: "t", Caller: "A", Target: "a.b"}, "target"},
		{"query bad from", &DiscoveryQuery{From: "#"}, "from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if fe.Field != tc.field {
				t.Fatalf("field = %q, want %q (%v)", fe.Field, tc.field, err)
			}
		})
	}
}

func TestErrorType(t *testing.T) {
	err := NewError(CodeTimeout, "after %s", "30s")
	if !err.Retryable || err.Error() != "TIMEOUT: after 30s" {
		t.Fatalf("NewError = %+v %q", err, err)
	}
	wrapped := errors.Join(errors.New("ctx"), err)
	if CodeOf(wrapped) != CodeTimeout || !errors.Is(wrapped, &Error{Code: CodeTimeout}) {
		t.Fatal("code not found through wrapping")
	}
	if errors.Is(wrapped, &Error{Code: CodeCanceled}) {
		t.Fatal("matched a different code")
	}
	te := &TaskError{Code: CodeBusy, Message: "m", Retryable: true}
	if !reflect.DeepEqual(te.AsError(), &Error{Code: CodeBusy, Message: "m", Retryable: true}) {
		t.Fatal("AsError")
	}
}

func TestPriorityAndTrace(t *testing.T) {
	if p, err := ParsePriority(""); err != nil || p.AMQP() != 5 {
		t.Fatalf("empty priority: %v %v", p, err)
	}
	if PriorityLow.AMQP() >= PriorityNormal.AMQP() || PriorityNormal.AMQP() >= PriorityHigh.AMQP() {
		t.Fatal("priorities out of order")
	}
	if _, err := ParsePriority("urgent"); !errors.Is(err, ErrInvalidField) {
		t.Fatalf("urgent: %v", err)
	}
	for _, bad := range []string{"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"} {
		if (Trace{Parent: bad}).Valid() {
			t.Errorf("traceparent %q accepted", bad)
		}
	}
}

func TestMessageText(t *testing.T) {
	m := NewTextMessage(MessageRoleAgent, "a")
	m.Parts = append(m.Parts, NewDataPart(1), NewTextPart("b"), nil)
	if got := MessageText(m); got != "a\nb" {
		t.Fatalf("MessageText = %q", got)
	}
	if MessageText(nil) != "" {
		t.Fatal("nil message")
	}
}

func ptr[T any](v T) *T { return &v }
