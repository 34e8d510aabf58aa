// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"strings"
	"unicode"
)

// isWordRune reports whether r belongs to a word: a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Tokens are the terms of s the matcher compares, in order and repeated
// as they occur: its words split at every other character and at
// camelCase humps (npvCalc: npv, calc), lower-cased, without stop words
// and numbers, each reduced to a crude stem (flows, flowing: flow;
// computes, computed, compute: comput) so that forms of one word meet.
func Tokens(s string) []string {
	var out []string
	for _, w := range words(s) {
		w = strings.ToLower(w)
		if stopWords[w] || len(w) < 2 || isNumber(w) {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// words splits s into runs of letters and digits, and a run at each
// lower-to-upper case change (camelCase).
func words(s string) []string {
	var out []string
	start := -1
	var prev rune
	for i, r := range s {
		switch {
		case !isWordRune(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			out = append(out, s[start:i])
			start = i
		}
		prev = r
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// isNumber reports whether w is all digits.
func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stem strips the common English inflections of w: plural -s and -es,
// -ies, -ing, -ed, then a final -e. It is deliberately crude: the same
// crudeness applies to the request and the cards.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// stopWords are the English words that say nothing about what is asked.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor of to in on at by for from with without about as into onto over under
		than then so if else also just only very too not no yes ok okay is are was were be been being am do does did done doing
		have has had having it its this that these those there here i me my mine we us our you your yours he him his she her
		they them their what which who whom whose how why when where whether some any all each every both either neither other
		more most such can could would should will shall may might must please kindly thanks thank hi hello hey let lets want
		wants need needs like get got give show tell help make one something anything someone
		now today using use via per etc`) {
		m[w] = true
	}
	return m
}()
