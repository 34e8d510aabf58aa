// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// A key given twice. encoding/json reads every value of a repeated key —
// the same key, or one that folds to it (it matches keys to fields in any
// letter case) — into the same field, the last one kept, and an error in
// any of them is the body's error. The mirrors read the earlier values
// more leniently than a2a-go does (a part without content is an error
// only once the last value is hydrated), so the encoding/json pass over a
// mirror does not decide a body with a repeated key: the standard path does.

// repeatsAKey reports whether an object of body, a valid JSON document, has
// two keys that encoding/json would take for the same field (or a key the
// reader cannot unescape: then it assumes so).
func repeatsAKey(body []byte) bool {
	r := &jsonReader{b: body}
	return !r.uniqueKeys()
}

// uniqueKeys reads one value; false when an object in it repeats a key.
func (r *jsonReader) uniqueKeys() bool {
	r.skipSpace()
	if r.i >= len(r.b) {
		return false
	}
	switch r.b[r.i] {
	case '{':
		r.i++
		if r.consume('}') {
			return true
		}
		var keys foldedKeys
		for {
			key, ok := r.span()
			if !ok || !keys.add(key) || !r.consume(':') || !r.uniqueKeys() {
				return false
			}
			if !r.consume(',') {
				return r.consume('}')
			}
		}
	case '[':
		r.i++
		if r.consume(']') {
			return true
		}
		for {
			if !r.uniqueKeys() {
				return false
			}
			if !r.consume(',') {
				return r.consume(']')
			}
		}
	}
	return r.skipValue()
}

// foldedKeys are the keys of one object, folded as encoding/json folds
// them; a set once there are many.
type foldedKeys struct {
	buf  []byte // the folded keys, one after another
	ends []int  // where each ends in buf
	set  map[string]struct{}
}

// add adds key; false when a key that folds to the same was added before.
func (s *foldedKeys) add(key []byte) bool {
	start := len(s.buf)
	s.buf = appendFoldedKey(s.buf, key)
	k := s.buf[start:]
	if s.set != nil {
		if _, dup := s.set[string(k)]; dup {
			return false
		}
		s.set[string(k)] = struct{}{}
		return true
	}
	prev := 0
	for _, end := range s.ends {
		if bytes.Equal(s.buf[prev:end], k) {
			return false
		}
		prev = end
	}
	s.ends = append(s.ends, len(s.buf))
	if len(s.ends) > 16 { // linear search no more
		s.set = make(map[string]struct{}, 2*len(s.ends))
		prev = 0
		for _, end := range s.ends {
			s.set[string(s.buf[prev:end])] = struct{}{}
			prev = end
		}
	}
	return true
}

// appendFoldedKey folds key as encoding/json folds a key to find its field:
// ASCII letters to upper case, any other rune to the smallest of its fold set.
func appendFoldedKey(out, key []byte) []byte {
	for i := 0; i < len(key); {
		if c := key[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}
