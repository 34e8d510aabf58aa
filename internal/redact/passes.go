// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"regexp"
	"strings"
)

// The built-in passes other than replaceKV find their candidates by hand
// and run a regular expression only anchored at one: Go's regexp, tried at
// every position of a text, cost about a millisecond per 2 KiB for urlRe,
// bearerRe and shapes. The tests hold each pass to its regular expression.

// shapeAt matches a token shape at the start of a text (shapes, anchored).
var shapeAt = regexp.MustCompile(`^(?:eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*` +
	`|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}` +
	`|github_pat_[A-Za-z0-9_]{20,}` +
	`|sk-[A-Za-z0-9_-]{16,}` +
	`|xox[abposr]-[A-Za-z0-9-]{10,}` +
	`|(?:AKIA|ASIA)[0-9A-Z]{16}\b)`)

// replaceURLs hides the passwords of the URLs in s (urlRe's matches, through URL).
func replaceURLs(s string) string {
	var b strings.Builder
	last, from := 0, 0
	for {
		n := strings.Index(s[from:], "://")
		if n < 0 {
			break
		}
		sep := from + n
		start := sep
		for start > last && isSchemeByte(s[start-1]) {
			start--
		}
		for start < sep && !isLetter(s[start]) {
			start++
		}
		end := sep + 3
		for end < len(s) && !isSpace(s[end]) {
			end++
		}
		if start == sep || end == sep+3 { // no scheme, or nothing after "://"
			from = sep + 1
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(URL(s[start:end]))
		last, from = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// replaceBearers hides bearer tokens (bearerRe's matches), keeping the word.
func replaceBearers(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+6 <= len(s); i++ {
		if s[i]|0x20 != 'b' || !fold(s[i:], "bearer") || i > 0 && isWord(s[i-1]) {
			continue
		}
		j := skipSpace(s, i+6)
		if j == i+6 {
			continue
		}
		k := j
		for k < len(s) && isTokenByte(s[k]) {
			k++
		}
		if k == j {
			continue
		}
		for k < len(s) && s[k] == '=' {
			k++
		}
		b.WriteString(s[last:i])
		b.WriteString(s[i : i+6])
		b.WriteString(" " + Secret)
		last, i = k, k-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// replaceShapes hides the token shapes (shapes' matches).
func replaceShapes(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'e', 'g', 's', 'x', 'A':
		default:
			continue
		}
		if i > 0 && isWord(s[i-1]) {
			continue
		}
		m := shapeAt.FindStringIndex(s[i:])
		if m == nil {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Secret)
		last, i = i+m[1], i+m[1]-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isWord(c byte) bool   { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }
func isSchemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}
func isTokenByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0
}
