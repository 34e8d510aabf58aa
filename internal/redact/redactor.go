// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
)

// ErrPattern is wrapped by New's error about a configured pattern.
var ErrPattern = errors.New("redact: invalid pattern")

// MaxPatterns bounds the configured patterns: each is one more pass over
// every text that is redacted.
const MaxPatterns = 64

// Redactor hides the built-in secrets and the text its configured patterns
// match. The zero value and nil hide the built-in ones only. It is safe
// for concurrent use.
type Redactor struct {
	patterns []*regexp.Regexp
}

// New returns a Redactor that also hides every match of patterns (RE2
// syntax, as Go's regexp): the whole match, or, when the pattern has
// groups, the text of each group that matched. A pattern that does not
// compile, or matches the empty text, is an error wrapping ErrPattern that
// names it.
func New(patterns []string) (*Redactor, error) {
	if len(patterns) > MaxPatterns {
		return nil, fmt.Errorf("%w: %d patterns, at most %d", ErrPattern, len(patterns), MaxPatterns)
	}
	r := &Redactor{}
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: pattern %d %q: %w", ErrPattern, i, p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%w: pattern %d %q matches the empty text", ErrPattern, i, p)
		}
		r.patterns = append(r.patterns, re)
	}
	return r, nil
}

// current is the process's redactor; nil: the built-in passes only.
var current atomic.Pointer[Redactor]

// Default returns the process's redactor: the one SetDefault gave, else
// the built-in passes only.
func Default() *Redactor { return current.Load() }

// SetDefault makes r the process's redactor, used by String and by every
// package that redacts what it logs, stores or gives a model (node.Open
// sets it from redact.patterns). nil restores the built-in passes only.
func SetDefault(r *Redactor) { current.Store(r) }

// String returns s with every secret replaced by Secret. Text without
// secrets is returned unchanged (and costs one scan of its bytes when no
// pattern is configured).
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	if f := scan(s); f != 0 {
		s = builtins(s, f)
	}
	if r == nil {
		return s
	}
	for _, re := range r.patterns {
		s = replacePattern(re, s)
	}
	return s
}

// replacePattern hides re's matches in s: the whole match, or its groups.
func replacePattern(re *regexp.Regexp, s string) string {
	if re.NumSubexp() == 0 {
		return re.ReplaceAllLiteralString(s, Secret)
	}
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	out := make([]byte, 0, len(s))
	last := 0
	for _, m := range idx {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] < last || m[g] < 0 { // a group that did not match, or inside one hidden
				continue
			}
			out = append(out, s[last:m[g]]...)
			out = append(out, Secret...)
			last = m[g+1]
		}
	}
	return string(append(out, s[last:]...))
}
