// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// w3cTraceParent is the traceparent grammar as a regular expression; Valid
// must agree with it (and with the W3C rules it adds: version ff and
// all-zero ids are invalid) without its cost.
var w3cTraceParent = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

func validByGrammar(p string) bool {
	m := w3cTraceParent.FindStringSubmatch(p)
	return m != nil && m[1] != "ff" && strings.Trim(m[2], "0") != "" && strings.Trim(m[3], "0") != ""
}

// Valid agrees with the grammar on valid values and on every one-byte
// change, cut and extension of them, and allocates nothing.
func TestTraceValidAgreesWithTheGrammar(t *testing.T) {
	seeds := []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
		"00-00000000000000000000000000000001-0000000000000001-ff",
	}
	alphabet := "0123456789abcdefABCDEF-xz \x00"
	r := rand.New(rand.NewPCG(1, 2))
	check := func(p string) {
		t.Helper()
		if got, want := (Trace{Parent: p}).Valid(), validByGrammar(p); got != want {
			t.Errorf("Valid(%q) = %v, the grammar says %v", p, got, want)
		}
	}
	for _, s := range seeds {
		check(s)
		check(s[:len(s)-1])
		check(s + "0")
		check("ff" + s[2:])
		check(s[:3] + strings.Repeat("0", 32) + s[35:])
		check(s[:36] + strings.Repeat("0", 16) + s[52:])
		for i := range len(s) {
			for j := range len(alphabet) {
				check(s[:i] + alphabet[j:j+1] + s[i+1:])
			}
		}
		for range 2000 {
			b := []byte(s)
			for range 1 + r.IntN(3) {
				b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
			}
			check(string(b))
		}
	}
	tr := Trace{Parent: seeds[0]}
	if n := testing.AllocsPerRun(100, func() { _ = tr.Valid() }); n != 0 {
		t.Errorf("Valid allocates %v times per call, want 0", n)
	}
}
