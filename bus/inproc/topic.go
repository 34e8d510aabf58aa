// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import "strings"

// pattern is a compiled AMQP topic binding key.
type pattern struct {
	raw   string
	words []string
}

func compile(binding string) pattern { return pattern{raw: binding, words: words(binding)} }

// matches reports whether key (already split into words) matches the binding.
func (p pattern) matches(key []string) bool { return matchWords(p.words, key) }

// words splits a dot-separated key; the empty key has no words.
func words(key string) []string {
	if key == "" {
		return nil
	}
	return strings.Split(key, ".")
}

// matchWords applies AMQP topic rules: "*" is exactly one word, "#" zero or
// more words, anything else must equal the word.
func matchWords(p, k []string) bool {
	for len(p) > 0 {
		switch p[0] {
		case "#":
			for len(p) > 1 && p[1] == "#" {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := range len(k) + 1 {
				if matchWords(p[1:], k[i:]) {
					return true
				}
			}
			return false
		case "*":
			if len(k) == 0 {
				return false
			}
		default:
			if len(k) == 0 || k[0] != p[0] {
				return false
			}
		}
		p, k = p[1:], k[1:]
	}
	return len(k) == 0
}
