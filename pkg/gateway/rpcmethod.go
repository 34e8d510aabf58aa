// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"bytes"
	"encoding/json"
)

// rpcMethod is the method of a JSON-RPC request, as a2asrv will decode it
// (json.Decoder into a field tagged "method": the last such key of the
// first JSON value, matched regardless of case), read without decoding
// the rest: the gateway needs it before a2asrv runs, to take a stream slot
// for a stream and to label the metrics. A body whose keys or method the
// scan cannot read plainly (escapes, non-ASCII bytes, a method that is not
// a string) is decoded as a2asrv decodes it; a body that is not an object
// has no method.
func rpcMethod(body []byte) string {
	if method, ok := scanMethod(body); ok {
		return method
	}
	var head struct {
		Method string `json:"method"`
	}
	_ = json.NewDecoder(bytes.NewReader(body)).Decode(&head) // a2asrv answers what does not parse
	return head.Method
}

// scanMethod reads the top-level keys of the object body, skipping their
// values; ok is false when it meets anything it does not read plainly.
func scanMethod(body []byte) (method string, ok bool) {
	s := jsonScan{b: body}
	if !s.consume('{') {
		return "", false
	}
	if s.consume('}') {
		return "", true
	}
	for {
		key, plain := s.plainString()
		if !plain || !s.consume(':') {
			return "", false
		}
		if bytes.EqualFold(key, methodKey) {
			value, plain := s.plainString()
			if !plain {
				return "", false
			}
			method = methodName(value)
		} else if !s.skipValue() {
			return "", false
		}
		if s.consume('}') {
			return method, true
		}
		if !s.consume(',') {
			return "", false
		}
	}
}

var methodKey = []byte("method")

// methodName is name as a string: an A2A method's name is the methods
// map's own string, not a copy.
func methodName(name []byte) string {
	if m, known := methods[string(name)]; known {
		return m
	}
	return string(name)
}

// jsonScan walks a JSON text without decoding it.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// consume passes white space and c, reporting whether c was there.
func (s *jsonScan) consume(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes.
func (s *jsonScan) plainString() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	for start := s.i; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// skipValue passes one value: a string, an object or an array (whatever
// strings they hold), or a literal, which ends at the next ',' '}' or ']'.
func (s *jsonScan) skipValue() bool {
	s.space()
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if !s.skipString() {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true // the end of the object holding a literal
			}
			if depth--; depth == 0 {
				s.i++
				return true
			}
		case ',':
			if depth == 0 {
				return true
			}
		}
		s.i++
	}
	return false
}

// skipString passes the string that starts at s.i, escapes and all.
func (s *jsonScan) skipString() bool {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return true
		}
	}
	return false
}
