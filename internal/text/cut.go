// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package text shapes text meant for people: Cut shortens it for
// messages, logs and model context without splitting a UTF-8 character,
// and Nearest suggests the names closest to a mistyped one.
package text

import "unicode/utf8"

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Cut cuts s to at most n bytes, the cut marked with Ellipsis (counted in
// n), on a rune boundary; s is returned as is when it fits.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len(Ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis
}
