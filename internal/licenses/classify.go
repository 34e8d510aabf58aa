// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package licenses holds the project to its license: it reads the licenses
// of the modules the binaries link from their files in the module cache
// (Linked, Classify) and says which are allowed in an Apache-2.0 program
// (Check). Its tests also keep the license header on every source file
// (scripts/add-license-headers.sh adds it).
package licenses

import (
	"slices"
	"strings"
	"unicode"
)

// rule recognizes one license in a normalized text: every phrase of one of
// its forms must appear.
type rule struct {
	id    string
	forms [][]string
	// hides lists licenses whose phrases this license's own text contains
	// (the MPL names the GPL family as secondary licenses), so they are not
	// reported beside it.
	hides []string
}

// rules are the licenses Classify knows, by their distinctive clauses. The
// allowed ones are recognized by the clauses that grant and condition the
// use; the others only need to be seen, so that Check refuses them by name.
var rules = []rule{
	{id: "Apache-2.0", forms: [][]string{
		{"apache license", "version 2 0", "terms and conditions for use reproduction and distribution", "grant of copyright license", "grant of patent license"},
		{"licensed under the apache license version 2 0", "you may not use this file except in compliance with the license"},
	}},
	{id: "MIT", forms: [][]string{{
		"permission is hereby granted free of charge to any person obtaining a copy of this software",
		"the above copyright notice and this permission notice shall be included in all copies or substantial portions of the software",
		"the software is provided as is without warranty of any kind",
	}}},
	{id: "ISC", forms: [][]string{
		{"permission to use copy modify and or distribute this software for any purpose with or without fee is hereby granted provided that the above copyright notice and this permission notice appear in all copies"},
		{"permission to use copy modify and distribute this software for any purpose with or without fee is hereby granted provided that the above copyright notice and this permission notice appear in all copies"},
	}},
	{id: "BSD-4-Clause", forms: [][]string{append(bsdClauses[:3:3], "all advertising materials mentioning features or use of this software must display")}},
	{id: "BSD-3-Clause", forms: [][]string{bsdClauses[:4]}},
	{id: "BSD-2-Clause", forms: [][]string{bsdClauses[:3]}},
	{id: "MPL-2.0", forms: [][]string{{"mozilla public license version 2 0"}, {"mozilla public license v 2 0"}},
		hides: []string{"GPL", "LGPL", "AGPL"}},
	{id: "AGPL", forms: [][]string{{"gnu affero general public license"}}, hides: []string{"GPL"}},
	{id: "LGPL", forms: [][]string{{"gnu lesser general public license"}, {"gnu library general public license"}}, hides: []string{"GPL"}},
	{id: "GPL", forms: [][]string{{"gnu general public license"}}},
	{id: "SSPL", forms: [][]string{{"server side public license"}}},
	{id: "BUSL", forms: [][]string{{"business source license"}}},
	{id: "Commons-Clause", forms: [][]string{{"commons clause"}}},
	{id: "NonCommercial", forms: [][]string{{"non commercial"}, {"noncommercial"}}},
	{id: "Unlicense", forms: [][]string{{"this is free and unencumbered software released into the public domain"}}},
	{id: "CC0-1.0", forms: [][]string{{"cc0 1 0 universal"}}},
}

// bsdClauses are the BSD licenses' clauses: the grant, the two conditions
// of BSD-2-Clause, and the no-endorsement condition of BSD-3-Clause.
var bsdClauses = []string{
	"redistribution and use in source and binary forms with or without modification are permitted provided that the following conditions are met",
	"redistributions of source code must retain the above copyright notice",
	"redistributions in binary form must reproduce the above copyright notice",
	"endorse or promote products derived from this software",
}

// Classify returns the SPDX identifiers of the licenses a license file's
// text holds, sorted (a file may hold several: the MIT-licensed files of a
// mostly Apache-2.0 module); none when it holds no license it knows. The
// GPL family, the SSPL, the BUSL and non-commercial terms are reported too,
// so that Check refuses them.
func Classify(text string) []string {
	norm := " " + normalize(text) + " "
	found := map[string]bool{}
	for _, r := range rules {
		for _, form := range r.forms {
			if containsAll(norm, form) {
				found[r.id] = true
				break
			}
		}
	}
	// A BSD-4-Clause text holds BSD-3's and BSD-2's clauses, a BSD-3 text
	// BSD-2's: report the one with the most clauses.
	if found["BSD-4-Clause"] {
		delete(found, "BSD-3-Clause")
	}
	if found["BSD-4-Clause"] || found["BSD-3-Clause"] {
		delete(found, "BSD-2-Clause")
	}
	for _, r := range rules {
		if found[r.id] {
			for _, h := range r.hides {
				delete(found, h)
			}
		}
	}
	var ids []string
	for id := range found {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func containsAll(norm string, phrases []string) bool {
	for _, p := range phrases {
		if !strings.Contains(norm, " "+p+" ") {
			return false
		}
	}
	return true
}

// normalize lower-cases text and turns every run of characters other than
// letters and digits (spaces, line breaks, punctuation, comment markers)
// into one space, so that the wrapping and quoting of a license's text do
// not matter.
func normalize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := true
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}
