// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The codec's fastest path: a hand-written reader for the two payloads of
// every call, task.request and task.result, in the shape this codec writes
// them (any key order, any spacing). It fills the same mirrors as the
// encoding/json pass (wire.go) in one scan of the body, without reflection.
// Anything else — a key it does not know (or knows in another case), a key
// twice, a null, an artifact, metadata maps, a part other than text, a
// surrogate escape, invalid UTF-8, any syntax error — makes it give up, and
// the body goes down the encoding/json path, so values and errors stay
// a2a-go's (FuzzWireDecode checks it against encoding/json).

// jsonReader reads one JSON document. The strings it returns are slices
// of one copy of the whole body (s), made at the first string, instead of
// one copy each: a payload's strings keep that copy alive together.
type jsonReader struct {
	b       []byte
	i       int
	s       string // the body as a string, once a string was read
	escaped bool   // the last span was unescaped into a copy, not a slice of b
}

func (r *jsonReader) skipSpace() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// consume takes the next non-space byte if it is c.
func (r *jsonReader) consume(c byte) bool {
	r.skipSpace()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// end reports whether only spaces are left.
func (r *jsonReader) end() bool {
	r.skipSpace()
	return r.i == len(r.b)
}

// members reads an object, calling member with each key once the reader is
// at its value (member reads the value); false on a syntax error, on a key
// given twice (encoding/json would keep the last) or when member gives up.
func (r *jsonReader) members(member func(key []byte) bool) bool {
	if !r.consume('{') {
		return false
	}
	if r.consume('}') {
		return true
	}
	var seenKeys [maxMembers][]byte
	seen := seenKeys[:0]
	for {
		key, ok := r.span()
		if !ok || len(seen) == maxMembers || slices.ContainsFunc(seen, func(k []byte) bool { return bytes.Equal(k, key) }) ||
			!r.consume(':') || !member(key) {
			return false
		}
		seen = append(seen, key)
		if !r.consume(',') {
			return r.consume('}')
		}
	}
}

// maxMembers is the most keys an object the reader takes may have (a
// task.request has 19 fields).
const maxMembers = 24

// elements reads an array, calling elem at each element.
func (r *jsonReader) elements(elem func() bool) bool {
	if !r.consume('[') {
		return false
	}
	if r.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if !r.consume(',') {
			return r.consume(']')
		}
	}
}

// str reads a string.
func (r *jsonReader) str() (string, bool) {
	b, ok := r.span()
	switch {
	case !ok:
		return "", false
	case len(b) == 0:
		return "", true
	case r.escaped:
		return string(b), true
	}
	if r.s == "" {
		r.s = string(r.b)
	}
	end := r.i - 1 // the closing quote
	return r.s[end-len(b) : end], true
}

// span reads a string as str does, as bytes: a slice of the body when the
// string has no escape (no copy), its unescaped copy otherwise. Keys, and
// the strings inside a skipped or raw value, are read this way.
func (r *jsonReader) span() ([]byte, bool) {
	if !r.consume('"') {
		return nil, false
	}
	start, ascii := r.i, true
	r.escaped = false
	for ; r.i < len(r.b); r.i++ {
		switch c := r.b[r.i]; {
		case c == '"':
			s := r.b[start:r.i]
			r.i++
			if !ascii && !utf8.Valid(s) {
				return nil, false // encoding/json replaces invalid bytes
			}
			return s, true
		case c == '\\':
			r.escaped = true
			return r.unescape(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// unescape reads the rest of a string from start, at its first escape.
func (r *jsonReader) unescape(start int) ([]byte, bool) {
	out := append(make([]byte, 0, r.i-start+16), r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			if !utf8.Valid(out) {
				return nil, false
			}
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			r.i++
			continue
		}
		if r.i+1 >= len(r.b) {
			return nil, false
		}
		e := r.b[r.i+1]
		r.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if r.i+4 > len(r.b) {
				return nil, false
			}
			n, err := strconv.ParseUint(string(r.b[r.i:r.i+4]), 16, 16)
			if err != nil || (n >= 0xD800 && n < 0xE000) { // surrogates: the standard path
				return nil, false
			}
			out = utf8.AppendRune(out, rune(n))
			r.i += 4
		default:
			return nil, false
		}
	}
	return nil, false
}

// strInto reads a string into a string-kinded field.
func strInto[S ~string](r *jsonReader, dst *S) bool {
	s, ok := r.str()
	*dst = S(s)
	return ok
}

// strings reads an array of strings (an empty one is not nil).
func (r *jsonReader) strings(dst *[]string) bool {
	out := []string{}
	ok := r.elements(func() bool {
		s, ok := r.str()
		out = append(out, s)
		return ok
	})
	*dst = out
	return ok
}

// boolean reads true or false.
func (r *jsonReader) boolean() (bool, bool) {
	r.skipSpace()
	for _, lit := range [...]string{"true", "false"} {
		if len(r.b)-r.i >= len(lit) && string(r.b[r.i:r.i+len(lit)]) == lit {
			r.i += len(lit)
			return lit == "true", true
		}
	}
	return false, false
}

// int reads an integer without fraction or exponent.
func (r *jsonReader) int(dst *int64) bool {
	r.skipSpace()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	digits := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits || (r.b[digits] == '0' && r.i-digits > 1) {
		return false
	}
	n, err := strconv.ParseInt(string(r.b[start:r.i]), 10, 64)
	*dst = n
	return err == nil
}

// time reads a time as encoding/json does: UnmarshalJSON on the quoted literal.
func (r *jsonReader) time(dst *time.Time) bool {
	r.skipSpace()
	start := r.i
	if _, ok := r.span(); !ok {
		return false
	}
	return dst.UnmarshalJSON(r.b[start:r.i]) == nil
}

// raw reads any JSON value as its bytes, as into a json.RawMessage (a copy).
func (r *jsonReader) raw(dst *json.RawMessage) bool {
	r.skipSpace()
	start := r.i
	if !r.skipValue() {
		return false
	}
	v := r.b[start:r.i]
	if len(v) == 0 || !json.Valid(v) {
		return false
	}
	*dst = append(json.RawMessage(nil), v...)
	return true
}

// skipValue moves past one value: a string, an object or an array (to its
// matching bracket), or a literal (to the next delimiter). Only its extent
// is found here; json.Valid checks it.
func (r *jsonReader) skipValue() bool {
	if r.i >= len(r.b) {
		return false
	}
	switch r.b[r.i] {
	case '"':
		_, ok := r.span()
		return ok
	case '{', '[':
		for depth := 0; r.i < len(r.b); r.i++ {
			switch r.b[r.i] {
			case '"':
				if _, ok := r.span(); !ok {
					return false
				}
				r.i-- // the loop steps past the closing quote again
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					r.i++
					return true
				}
			}
		}
		return false
	}
	for ; r.i < len(r.b); r.i++ {
		switch r.b[r.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return true
		}
	}
	return true
}

// message reads a message with text parts only.
func (r *jsonReader) message(m *wireMessage) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "messageId":
			return strInto(r, &m.ID)
		case "contextId":
			return strInto(r, &m.ContextID)
		case "role":
			return strInto(r, &m.Role)
		case "taskId":
			return strInto(r, &m.TaskID)
		case "parts":
			m.Parts = []*wirePart{}
			return r.elements(func() bool {
				p := &wirePart{}
				m.Parts = append(m.Parts, p)
				return r.textPart(p)
			})
		}
		return false
	})
}

// textPart reads a part whose content is text.
func (r *jsonReader) textPart(p *wirePart) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "text":
			var ok bool
			p.text, ok = r.str()
			p.Text = &p.text
			return ok
		case "mediaType":
			return strInto(r, &p.MediaType)
		case "filename":
			return strInto(r, &p.Filename)
		}
		return false
	}) && p.Text != nil
}

// taskRequest reads a task.request body into w.
func (r *jsonReader) taskRequest(w *wireTaskRequest) bool {
	v := w.taskRequestFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "taskId":
			return strInto(r, &v.TaskID)
		case "contextId":
			return strInto(r, &v.ContextID)
		case "sessionId":
			return strInto(r, &v.SessionID)
		case "caller":
			return strInto(r, &v.Caller)
		case "target":
			return strInto(r, &v.Target)
		case "skill":
			return strInto(r, &v.Skill)
		case "message":
			w.Message = &wireMessage{}
			return r.message(w.Message)
		case "input":
			return r.raw(&v.Input)
		case "priority":
			return strInto(r, &v.Priority)
		case "deadline":
			return r.time(&v.Deadline)
		case "startBy":
			return r.time(&v.StartBy)
		case "correlationId":
			return strInto(r, &v.CorrelationID)
		case "handoff":
			return r.raw(&v.Handoff)
		case "callChain":
			return r.strings(&v.CallChain)
		case "allowNestedCalls":
			b, ok := r.boolean()
			v.AllowNestedCalls = &b
			return ok
		case "stream":
			b, ok := r.boolean()
			v.Stream = b
			return ok
		case "createdAt":
			return r.time(&v.CreatedAt)
		case "turn":
			return r.intInto(&v.Turn)
		case "history":
			return r.messages(&w.History)
		case "contextHistory":
			return r.messages(&w.ContextHistory)
		case "callerContext":
			v.CallerContext = &CallerContext{}
			return r.callerContext(v.CallerContext)
		case "allowedTools":
			return r.strings(&v.AllowedTools)
		case "maxContextTokens":
			return r.intInto(&v.MaxContextTokens)
		}
		return false
	}) && r.end()
}

// taskResult reads a task.result body without artifacts into w.
func (r *jsonReader) taskResult(w *wireTaskResult) bool {
	v := w.taskResultFields
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "taskId":
			return strInto(r, &v.TaskID)
		case "agent":
			return strInto(r, &v.Agent)
		case "state":
			return strInto(r, &w.State)
		case "status":
			return strInto(r, &v.Status)
		case "message":
			w.Message = &wireMessage{}
			return r.message(w.Message)
		case "confidence":
			return strInto(r, &v.Confidence)
		case "warnings":
			return r.strings(&v.Warnings)
		case "metadata":
			return r.resultMetadata(&v.Metadata)
		case "time":
			return r.time(&v.Time)
		case "turn":
			return r.intInto(&v.Turn)
		case "attempt":
			return r.intInto(&v.Attempt)
		case "question":
			v.Question = &Question{}
			return r.question(v.Question)
		}
		return false
	}) && r.end()
}

// resultMetadata reads result metadata without its extra map.
func (r *jsonReader) resultMetadata(m *ResultMetadata) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "processingTimeMs":
			return r.int(&m.ProcessingTimeMs)
		case "agentVersion":
			return strInto(r, &m.AgentVersion)
		case "tokensUsed":
			return r.int(&m.TokensUsed)
		}
		return false
	})
}
