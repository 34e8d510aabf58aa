// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxHeadValue bounds a string field lineHead keeps (a type, a request id,
// a call id, an error code); a longer one is not recovered.
const maxHeadValue = 1024

// lineHead reads, in bounded memory, what a line too long to keep is about:
// the string fields type, request_id, call_id and code of the top-level
// JSON object, wherever they stand in it, as the line streams past (write).
// Nested values and other fields are skipped; a line that is not an object
// yields nothing.
type lineHead struct {
	n                        int // bytes seen
	typ, requestID, callID   string
	code                     string
	started, broken          bool // the object's '{' seen; not an object
	depth                    int  // of objects and arrays, outside strings
	inString, escaped, isKey bool // in a string; after its backslash; the string is a key
	wantKey                  bool // at depth 1, the next string is a key
	keep                     bool // the current string is kept (a key, or a wanted value)
	buf                      []byte
	key                      string // the last key at depth 1
}

// write feeds the next bytes of the line.
func (h *lineHead) write(p []byte) {
	h.n += len(p)
	for i := 0; i < len(p) && !h.broken; i++ {
		if h.inString {
			if !h.keep && !h.escaped { // skip to the next quote or backslash at once
				j := stringEnd(p[i:])
				if j < 0 {
					return
				}
				i += j
			}
			h.stringByte(p[i])
			continue
		}
		switch b := p[i]; b {
		case ' ', '\t', '\r', '\n':
		case '{', '[':
			if !h.started {
				if b != '{' {
					h.broken = true
					return
				}
				h.started, h.wantKey = true, true
			}
			h.depth++
		case '}', ']':
			h.depth--
		case '"':
			h.inString, h.isKey = true, h.depth == 1 && h.wantKey
			h.keep = h.isKey || (h.depth == 1 && h.wanted(h.key))
			h.buf = h.buf[:0]
		case ',':
			if h.depth == 1 {
				h.wantKey = true
			}
		case ':':
			if h.depth == 1 {
				h.wantKey = false
			}
		default:
			if !h.started {
				h.broken = true
			}
		}
	}
}

// stringEnd is where in p, inside a string, the next quote or backslash is;
// -1 when none.
func stringEnd(p []byte) int {
	q, bs := bytes.IndexByte(p, '"'), bytes.IndexByte(p, '\\')
	switch {
	case q < 0:
		return bs
	case bs < 0:
		return q
	}
	return min(q, bs)
}

// stringByte takes one byte of a string.
func (h *lineHead) stringByte(b byte) {
	switch {
	case h.escaped:
		h.escaped = false
	case b == '\\':
		h.escaped = true
	case b == '"':
		h.inString = false
		if !h.keep {
			return
		}
		var s string
		if err := json.Unmarshal(append(append([]byte{'"'}, h.buf...), '"'), &s); err != nil {
			s = "" // not a valid string: recover nothing from it
		}
		if h.isKey {
			h.key = s
		} else {
			h.set(h.key, s)
		}
		return
	}
	if h.keep {
		if len(h.buf) >= maxHeadValue {
			h.keep = false
			if h.isKey {
				h.key = "" // an unknown key: its value is skipped
			}
			return
		}
		h.buf = append(h.buf, b)
	}
}

// wanted reports whether the value of key is kept.
func (h *lineHead) wanted(key string) bool {
	switch key {
	case "type", "request_id", "call_id", "code":
		return true
	}
	return false
}

// set records a wanted field (the first value of a repeated key wins).
func (h *lineHead) set(key, v string) {
	var f *string
	switch key {
	case "type":
		f = &h.typ
	case "request_id":
		f = &h.requestID
	case "call_id":
		f = &h.callID
	case "code":
		f = &h.code
	default:
		return
	}
	if *f == "" {
		*f = v
	}
}

// oversized acts on a line of process c longer than MaxFrameBytes, whose
// content is lost: an agent.card fails the card wait with the reason; a
// task.result or task.question ends its request with RESULT_TOO_LARGE and
// a task.error with its code (the message lost); an invoke is answered
// with INVALID_INPUT; anything else (a task.progress, a line whose type and request cannot be
// read) is skipped as a protocol violation.
func (b *Bridge) oversized(c *child, h *lineHead) {
	kind := "a"
	switch h.typ {
	case TypeAgentCard, TypeTaskProgress, TypeTaskResult, TypeTaskError, TypeTaskQuestion, TypeInvoke:
		kind = h.typ
	}
	what := fmt.Sprintf("%s line of %d bytes is longer than the line limit of %d bytes", kind, h.n, b.opts.MaxFrameBytes)
	switch h.typ {
	case TypeAgentCard:
		select {
		case c.cards <- cardLine{err: fmt.Errorf("%w: its %s (bus.max_message_bytes)", ErrBadCard, what)}:
		default:
			b.violation(c.pid, what+": repeated agent.card skipped", nil)
		}
		return
	case TypeTaskResult, TypeTaskQuestion, TypeTaskError:
		p := c.lookup(h.requestID, true)
		if p == nil {
			b.violation(c.pid, what+", for an unknown request_id "+quoteCut(h.requestID), nil)
			return
		}
		var e *a2a.Error
		if h.typ != TypeTaskError {
			e = a2a.NewError(a2a.CodeResultTooLarge, "the agent process wrote a %s", what)
		} else {
			e = errorOf(&Frame{Code: h.code, Message: "the agent process wrote a " + what + "; its message is not shown"})
		}
		b.violation(c.pid, what+": its request fails with "+string(e.Code), nil)
		p.failWith(e)
		return
	case TypeInvoke:
		if h.callID != "" { // answered, so the process does not wait for it forever
			b.violation(c.pid, what+": the call is refused", nil)
			_ = c.send(&Frame{Type: TypeInvokeResult, RequestID: h.requestID, CallID: h.callID, Status: string(a2a.StatusError),
				Code: string(a2a.CodeInvalidInput), Message: "refused: its " + what})
			return
		}
	}
	b.violation(c.pid, what+" skipped", nil)
}

// quoteCut quotes s, cut to 64 bytes, for a log line.
func quoteCut(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
