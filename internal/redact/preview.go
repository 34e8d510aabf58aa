// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// previewWindow is how much of a long text Preview redacts first: a secret
// of up to about this many bytes is recognised whole.
const previewWindow = 4 << 10

// Preview is s redacted, its runs of white space made one space, and cut
// to at most maxRunes characters (an ellipsis marks the cut; maxRunes <= 0
// keeps the whole text). Only the first 4 KiB of a long text are redacted
// when nothing in them is a secret (the preview is cut well before that);
// when something is, the whole text is, so that a secret cut at the window's
// edge cannot slide into the preview as what remains once the ones before it
// were hidden. It redacts before it cuts, so a cut cannot leave part of a
// secret that its redaction would not recognise.
func (r *Redactor) Preview(s string, maxRunes int) string {
	window := s
	if maxRunes > 0 && len(s) > previewWindow+4*maxRunes {
		window = cutBytes(s, previewWindow+4*maxRunes)
	}
	red := r.String(window)
	if len(window) < len(s) && red != window {
		red = r.String(s)
	}
	return Collapse(red, maxRunes)
}

// Collapse is s with its runs of white space made one space (none at
// either end), cut to at most maxRunes characters with an ellipsis marking
// the cut (maxRunes <= 0: the whole text). It reads no further than the
// cut: the preview of a text already redacted.
func Collapse(s string, maxRunes int) string {
	if collapsed(s, maxRunes) {
		return s // the usual short answer: nothing to change, nothing to copy
	}
	return collapse(s, maxRunes)
}

// collapse is Collapse without its shortcut.
func collapse(s string, maxRunes int) string {
	var b strings.Builder
	size := len(s) // one allocation: at most the text, or its cut
	if maxRunes > 0 {
		size = min(size, maxRunes*utf8.UTFMax+len("…"))
	}
	b.Grow(size)
	n, space := 0, false
	for i, c := range s {
		if unicode.IsSpace(c) {
			space = n > 0
			continue
		}
		if maxRunes > 0 && n+btoi(space) >= maxRunes {
			if strings.TrimSpace(s[i:]) != "" {
				b.WriteString("…")
			}
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// collapsed reports whether Collapse(s, maxRunes) is s: valid UTF-8 of at
// most maxRunes characters, its words one ASCII space apart, none at either end.
func collapsed(s string, maxRunes int) bool {
	n, space := 0, true // true: no space at the start
	for _, c := range s {
		if unicode.IsSpace(c) {
			if c != ' ' || space {
				return false
			}
			space = true
		} else {
			if c == utf8.RuneError { // an invalid byte, which Collapse writes as U+FFFD
				return false
			}
			space = false
		}
		n++
	}
	return !(space && n > 0) && (maxRunes <= 0 || n <= maxRunes)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cutBytes is s's first n bytes at most, not splitting a character.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
