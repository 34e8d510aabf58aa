// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

// idPattern is a name rule of the form ^[first][rest]{min-1,max-1}$ over ASCII,
// checked without a regular expression: names are validated on every
// message, so this is on the hot path.
type idPattern struct {
	text   string // the rule as a regular expression, for error messages
	first  [256]bool
	rest   [256]bool
	minLen int
	maxLen int
}

// newIDPattern builds a rule from the character sets allowed first and after.
func newIDPattern(text, first, rest string, minLen, maxLen int) *idPattern {
	p := &idPattern{text: text, minLen: minLen, maxLen: maxLen}
	for _, set := range []struct {
		chars string
		into  *[256]bool
	}{{first, &p.first}, {rest, &p.rest}} {
		for i := 0; i < len(set.chars); i++ {
			set.into[set.chars[i]] = true
		}
	}
	return p
}

// match reports whether s follows the rule.
func (p *idPattern) match(s string) bool {
	if len(s) < max(p.minLen, 1) || len(s) > p.maxLen || !p.first[s[0]] {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !p.rest[s[i]] {
			return false
		}
	}
	return true
}

// String is the rule as a regular expression.
func (p *idPattern) String() string { return p.text }

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
)

// The name rules as regular expressions, for JSON Schemas and messages.
const (
	AgentNameRegexp = `^[A-Za-z][A-Za-z0-9_-]{0,63}$`
	SkillIDRegexp   = `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`
)

var (
	agentNamePattern  = newIDPattern(AgentNameRegexp, upper+lower, upper+lower+digits+"_-", 1, 64)
	instanceIDPattern = newIDPattern(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`, upper+lower+digits, upper+lower+digits+"_-", 1, 64)
	taskIDPattern     = newIDPattern(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`, upper+lower+digits, upper+lower+digits+"_-", 1, 128)
	sessionIDPattern  = newIDPattern(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`, upper+lower+digits, upper+lower+digits+"_.:-", 1, 128)
	skillIDPattern    = newIDPattern(SkillIDRegexp, upper+lower+digits, upper+lower+digits+"_.-", 1, 64)
	errorCodePattern  = newIDPattern(`^[A-Z][A-Z0-9_]{1,63}$`, upper, upper+digits+"_", 2, 64)
)
