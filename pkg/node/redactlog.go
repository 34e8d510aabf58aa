// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"fmt"

	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/internal/redact"
)

// redactCore is the logging boundary of the one redaction pass: every
// message, string, error and Stringer field of a line goes through the
// process's redactor before it is encoded (text without a candidate costs
// one scan of its bytes).
type redactCore struct{ zapcore.Core }

// With redacts the fields a child logger carries.
func (c redactCore) With(fs []zapcore.Field) zapcore.Core {
	return redactCore{c.Core.With(redactFields(fs))}
}

// Check adds this core, so that Write redacts.
func (c redactCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

// Write redacts the message and the fields, then writes.
func (c redactCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	e.Message = redact.String(e.Message)
	return c.Core.Write(e, redactFields(fs))
}

// redactFields returns fs with its text redacted (copied only when a field changes).
func redactFields(fs []zapcore.Field) []zapcore.Field {
	var out []zapcore.Field
	for i, f := range fs {
		var s string
		switch f.Type {
		case zapcore.StringType:
			s = f.String
		case zapcore.ErrorType:
			if err, ok := f.Interface.(error); ok && err != nil {
				s = err.Error()
			}
		case zapcore.StringerType:
			var ok bool
			if s, ok = stringOf(f.Interface); !ok {
				continue // zap's encoder reports the panic, as it would have
			}
		default:
			continue
		}
		r := redact.String(s)
		if r == s && f.Type == zapcore.StringType {
			continue
		}
		if out == nil {
			out = append([]zapcore.Field(nil), fs...)
		}
		out[i] = zapcore.Field{Key: f.Key, Type: zapcore.StringType, String: r}
	}
	if out == nil {
		return fs
	}
	return out
}

// stringOf is v's String, false when v is not a Stringer or String panics
// (a nil pointer): the field is then left to zap, which recovers and says so.
func stringOf(v any) (s string, ok bool) {
	st, isStringer := v.(fmt.Stringer)
	if !isStringer || st == nil {
		return "", false
	}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	return st.String(), true
}
