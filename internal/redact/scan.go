// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import "strings"

// family is a set of the kinds of secret a text may hold, each the
// candidates of one built-in pass.
type family uint8

const (
	famURL    family = 1 << iota // "://": urlRe
	famKV                        // a credential-named key: kvRe
	famBearer                    // "bearer": bearerRe
	famShape                     // the start of a token shape: shapes
	famAll    = famURL | famKV | famBearer | famShape
)

// scan is the fast path: one pass over s's bytes that reports which
// built-in passes may find something. Every match of a pass holds the
// literal scan looks for (kvRe's keywords all contain one of pass, pwd,
// secret, token, key, credential, authoriz or cookie, case-insensitive;
// the shapes start with their case-sensitive prefixes), so a pass scan
// leaves out cannot match. It may report candidates that are no secret
// ("monkey"): the pass then runs and finds nothing.
func scan(s string) family {
	var f family
	for i := 0; i < len(s) && f != famAll; i++ {
		switch s[i] | 0x20 { // ASCII lower case (and ':' stays ':' | 0x20 == ':')
		case ':':
			if strings.HasPrefix(s[i:], "://") {
				f |= famURL
			}
		case 'p':
			if fold(s[i:], "pass") || fold(s[i:], "pwd") {
				f |= famKV
			}
		case 's':
			if fold(s[i:], "secret") {
				f |= famKV
			}
			if strings.HasPrefix(s[i:], "sk-") {
				f |= famShape
			}
		case 't':
			if fold(s[i:], "token") {
				f |= famKV
			}
		case 'k':
			if fold(s[i:], "key") {
				f |= famKV
			}
		case 'c':
			if fold(s[i:], "credential") || fold(s[i:], "cookie") {
				f |= famKV
			}
		case 'a':
			if fold(s[i:], "authoriz") {
				f |= famKV
			}
			if strings.HasPrefix(s[i:], "AKIA") || strings.HasPrefix(s[i:], "ASIA") {
				f |= famShape
			}
		case 'b':
			if fold(s[i:], "bearer") {
				f |= famBearer
			}
		case 'e':
			if strings.HasPrefix(s[i:], "eyJ") {
				f |= famShape
			}
		case 'g':
			if strings.HasPrefix(s[i:], "gh") && len(s) > i+3 && s[i+3] == '_' || strings.HasPrefix(s[i:], "github_pat_") {
				f |= famShape
			}
		case 'x':
			if strings.HasPrefix(s[i:], "xox") {
				f |= famShape
			}
		case 0xe2, 0xe5: // 0xe2, and 0xc5 | 0x20: the first bytes of 'K' (U+212A) and 'ſ' (U+017F), which (?i) folds to k and s
			if strings.HasPrefix(s[i:], "\u212a") || strings.HasPrefix(s[i:], "\u017f") {
				f |= famKV
			}
		}
	}
	return f
}

// fold reports whether s starts with lower, an ASCII lower-case word,
// ignoring ASCII case.
func fold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if s[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}
