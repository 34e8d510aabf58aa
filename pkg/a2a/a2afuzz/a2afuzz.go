// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package a2afuzz builds a2a values from fuzz input, for the fuzz tests
// that hold a hand-written JSON writer byte-equal to encoding/json
// (pkg/a2a's FuzzWireEncode, pkg/caller's FuzzStoredJSON): every field,
// strings with escapes, invalid UTF-8 and HTML characters, times in odd
// zones and out of range, metadata maps and data values of every JSON type,
// nested parts. Only tests import it (its own test holds that).
//
// A Gen takes one byte of the input for each choice, so an input always
// builds the same values, and a longer input builds more of them.
package a2afuzz

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// AddSeeds adds the seed inputs the fuzz targets on a Gen start from:
// none, awkward characters, and two longer runs of bytes.
func AddSeeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\xff\x07<a href='x'>&amp;</a>\u2028\xe2\x80\xa9\xc3\x28 \"\\\n\t\x00"))
	f.Add(bytes.Repeat([]byte{0xff, 0x03, 0x11, 0x80, 0x7f}, 40))
	f.Add(bytes.Repeat([]byte{5, 250, 3, 9, 1, 'x', 0xe2, 0x80, 0xa8, 2}, 60))
}

// Gen builds values from fuzz input: each choice takes the next byte (0
// once the input is used up).
type Gen struct {
	data []byte
	i    int
}

// New returns a Gen that reads data from its start.
func New(data []byte) *Gen { return &Gen{data: data} }

// Byte is the next byte of the input, 0 once it is used up.
func (g *Gen) Byte() byte {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return g.data[g.i-1]
}

// N is a choice among k (0 to k-1), from the next byte; k is at most 256.
func (g *Gen) N(k int) int { return int(g.Byte()) % k }

var genStrings = []string{"", "a", "<b>x & y</b>", "\u2028\u2029", "é€😀", "\x00\x1f\x7f", `"\/`, "\xff\xfe", "\ufffd",
	"line\nbreak\ttab\r\b\f", "\xe2\x80", "ROLE_USER", "TASK_STATE_COMPLETED"}

// Str is a string of a pool of awkward ones (escapes, HTML, line
// separators, invalid UTF-8) or a slice of the input (any bytes).
func (g *Gen) Str() string {
	if k := g.N(len(genStrings) + 1); k < len(genStrings) {
		return genStrings[k]
	}
	l := g.N(24)
	if g.i+l > len(g.data) {
		l = len(g.data) - g.i
	}
	s := string(g.data[g.i : g.i+l])
	g.i += l
	return s
}

// Strs is nil, empty, or one to four strings of Str.
func (g *Gen) Strs() []string {
	switch g.N(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, g.N(4)+1)
	for i := range out {
		out[i] = g.Str()
	}
	return out
}

// U64 is the next eight bytes, little-endian.
func (g *Gen) U64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = g.Byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

var genZones = []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("CET", 3600), time.FixedZone("odd", -(5*3600 + 17)),
	time.FixedZone("day", 24*3600), time.FixedZone("min", -59)}

// Now is the usual moment among Time's choices.
var Now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// Time is the zero time, Now, the last moment of a year from 9998 to 10000
// (past what RFC 3339 can write), or a moment within 200 years of 1970
// with nanoseconds; the last two in zones of odd offsets (seconds, a whole
// day) or UTC.
func (g *Gen) Time() time.Time {
	switch g.N(5) {
	case 0:
		return time.Time{}
	case 1:
		return Now
	case 2:
		return time.Date(10000+g.N(3)-2, 12, 31, 23, 59, 59, 999999999, genZones[g.N(len(genZones))]) // year 9998..10000
	}
	sec := int64(g.U64() % (400 * 365 * 86400))
	return time.Unix(sec-200*365*86400, int64(g.U64()%1e9)).In(genZones[g.N(len(genZones))])
}

// Float is any float64 (NaN and the infinities included), a tiny or huge
// one (where encoding/json switches to exponents), a negative zero, or a
// plain one.
func (g *Gen) Float() float64 {
	switch g.N(6) {
	case 0:
		return math.Float64frombits(g.U64())
	case 1:
		return math.Inf(1)
	case 2:
		return 1e-7 * float64(g.N(100))
	case 3:
		return 1e21 * float64(g.N(100))
	case 4:
		return math.Copysign(0, -1) // a negative zero
	}
	return float64(g.N(256)) / 8
}

// Value is a value of a metadata map or a data part: nil, a string, a
// bool, a float, a map or a slice (while depth is below 4), an int, a
// json.Number, a json.RawMessage (either maybe invalid), a struct, a nil
// map.
func (g *Gen) Value(depth int) any {
	switch g.N(12) {
	case 0:
		return nil
	case 1, 2:
		return g.Str()
	case 3:
		return g.N(2) == 1
	case 4:
		return g.Float()
	case 5:
		if depth < 4 {
			return g.Meta(depth + 1)
		}
	case 6:
		if depth < 4 {
			if g.N(4) == 0 {
				return []any(nil)
			}
			out := make([]any, g.N(4))
			for i := range out {
				out[i] = g.Value(depth + 1)
			}
			return out
		}
	case 7:
		return g.N(1000) - 500 // an int: through json.Marshal
	case 8:
		return json.Number(g.Str())
	case 9:
		return json.RawMessage(g.Raw())
	case 10:
		return struct {
			A string `json:"a"`
			B []byte `json:"b,omitempty"`
		}{g.Str(), []byte(g.Str())}
	case 11:
		return map[string]any(nil)
	}
	return g.Str()
}

// Meta is a metadata map: nil, empty, or one to six keys of Str with
// values of Value at depth.
func (g *Gen) Meta(depth int) map[string]any {
	switch g.N(4) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	}
	m := map[string]any{}
	for range g.N(6) + 1 {
		m[g.Str()] = g.Value(depth)
	}
	return m
}

var genRaws = []string{"", `{"a":1}`, ` { "a" : [1, 2] } `, `"<&>"`, "\"\u2028\"", `[1,`, `null`, "\t7\n", `{"k":"\u00e9"}`, "\"\xff\""}

// Raw is raw JSON: nil, empty, spaced, escaped, invalid, or a string of
// Str.
func (g *Gen) Raw() json.RawMessage {
	if k := g.N(len(genRaws) + 1); k < len(genRaws) {
		if k == 0 && g.N(2) == 0 {
			return nil
		}
		return json.RawMessage(genRaws[k])
	}
	return json.RawMessage(g.Str())
}

// Part is nil or a part of every content type (text, raw bytes, data, URL,
// none).
func (g *Gen) Part() *a2a.Part {
	if g.N(8) == 0 {
		return nil
	}
	p := &a2a.Part{Filename: g.Str(), MediaType: g.Str(), Metadata: g.Meta(0)}
	switch g.N(6) {
	case 0:
		p.Content = spec.Text(g.Str())
	case 1:
		if g.N(3) > 0 {
			p.Content = spec.Raw(g.Str())
		} else {
			p.Content = spec.Raw(nil)
		}
	case 2:
		p.Content = spec.Data{Value: g.Value(0)}
	case 3:
		p.Content = spec.URL(g.Str())
	case 4:
		p.Content = nil
	default:
		p.Content = spec.Text("plain text")
	}
	return p
}

// Parts is nil or up to three parts of Part.
func (g *Gen) Parts() spec.ContentParts {
	if g.N(6) == 0 {
		return nil
	}
	out := make(spec.ContentParts, g.N(4))
	for i := range out {
		out[i] = g.Part()
	}
	return out
}

var genRoles = []spec.MessageRole{a2a.MessageRoleUser, a2a.MessageRoleAgent, spec.MessageRoleUnspecified, "ROLE_OTHER<>"}

// Message is nil or a message with every field, of any role (unknown ones
// included).
func (g *Gen) Message() *a2a.Message {
	if g.N(6) == 0 {
		return nil
	}
	m := &a2a.Message{ID: g.Str(), ContextID: g.Str(), Extensions: g.Strs(), Metadata: g.Meta(0), Parts: g.Parts(),
		Role: genRoles[g.N(len(genRoles))], TaskID: spec.TaskID(g.Str())}
	for _, s := range g.Strs() {
		m.ReferenceTasks = append(m.ReferenceTasks, spec.TaskID(s))
	}
	return m
}

// Messages is nil or up to two messages of Message.
func (g *Gen) Messages() []*a2a.Message {
	if g.N(3) == 0 {
		return nil
	}
	out := make([]*a2a.Message, g.N(3))
	for i := range out {
		out[i] = g.Message()
	}
	return out
}
