// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every character that could drive a terminal made
// visible, for text that came from the bus, a model or working memory and
// is printed for people: C0 controls other than newline and tab, ESC (so no
// escape sequence — ESC[2J, OSC 0, ESC[1A — reaches the terminal), DEL and
// invalid UTF-8 bytes as \xNN; C1 controls and the bidirectional overrides
// as \uNNNN. A string with none is returned as it is, without copying.
func Printable(s string) string { return escape(s, false) }

// PrintableLine is Printable for one line or table cell: newline and tab
// are escaped too (as \n and \t).
func PrintableLine(s string) string { return escape(s, true) }

func escape(s string, oneLine bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf && !unsafeByte(c, oneLine) {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c < utf8.RuneSelf || (r == utf8.RuneError && n == 1) || unsafeRune(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case !unsafeByte(c, oneLine):
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			default:
				fmt.Fprintf(&b, `\x%02x`, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeByte reports whether ASCII byte c must be escaped: a C0 control
// (newline and tab only when oneLine) or DEL.
func unsafeByte(c byte, oneLine bool) bool {
	if c == '\n' || c == '\t' {
		return oneLine
	}
	return c < 0x20 || c == 0x7f
}

// unsafeRune reports whether r must be escaped: a C1 control (U+0080 to
// U+009F; U+009B is CSI, U+009D OSC) or a bidirectional embedding, override
// or isolate, which reorders what follows it on the line.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
