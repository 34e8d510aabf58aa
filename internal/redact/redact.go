// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package redact hides secrets in text that is logged or stored: the
// passwords of URLs, bearer tokens, credentials written as key=value or
// "key": "value", and a few well-known token shapes (JWTs, GitHub, Slack,
// AWS and sk- API keys). It errs on the side of hiding too much.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Secret replaces every secret.
const Secret = "xxxxx"

// URL hides the password of raw, and the values of credential-named query
// parameters (?api_key=…, ?access_token=…), which (*url.URL).Redacted
// leaves. A URL that parses back to the same text with its only '@' in its
// user info goes through Redacted. Any other is cut as text, everything
// between the first ':' after "://" and the last '@', so that one that
// does not parse (it ends up in an error message), parses in an unexpected
// way ("amqp://u:123/x@host", where Parse sees no password) or would be
// written back otherwise (a URL cut out of free text with a quote after
// it) never leaks its secret nor changes.
// A text without "://" but with an '@' cannot be told apart from
// "user:pass@host" and is hidden whole.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || strings.Count(raw, "@") != countUser(u) || u.String() != raw {
		return cutPassword(raw)
	}
	if u.RawQuery != "" {
		u.RawQuery = replaceKV(u.RawQuery)
	}
	return u.Redacted()
}

// countUser is 1 when u has user info (its '@'), else 0.
func countUser(u *url.URL) int {
	if u.User != nil {
		return 1
	}
	return 0
}

// cutPassword is URL's reading as text, for what url.Parse cannot be
// trusted with.
func cutPassword(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		if strings.Contains(raw, "@") {
			return Secret
		}
		return raw
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	colon := strings.Index(rest[:at], ":")
	if colon < 0 {
		return raw
	}
	prefix := len(raw) - len(rest)
	return raw[:prefix+colon+1] + Secret + rest[at:]
}

var (
	// urlRe finds URLs in free text; URL hides their passwords.
	urlRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://\S+`)
	// kvRe finds a credential-named key, its separator and its value
	// (quoted, or a bare word optionally after an auth scheme).
	kvRe = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)["']?\s*[:=]\s*)` +
		`("[^"]*"|'[^']*'|(?:(?:bearer|basic|token)\s+)?[^\s"'&,;)}\]]+)`)
	// bearerRe finds a bearer token outside a key=value pair.
	bearerRe = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
	// shapes are tokens recognisable on their own.
	shapes = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*` + // JWT
		`|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}` + // GitHub tokens
		`|\bgithub_pat_[A-Za-z0-9_]{20,}` +
		`|\bsk-[A-Za-z0-9_-]{16,}` + // OpenAI, Anthropic and similar API keys
		`|\bxox[abposr]-[A-Za-z0-9-]{10,}` + // Slack
		`|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`) // AWS access key ids
)

// String returns s with every secret it recognises replaced by Secret: URL
// passwords, values of keys such as password, token, secret, api_key or
// authorization (key=value, key: value, "key": "value"), bearer tokens and
// well-known token shapes. Text without secrets is returned unchanged.
func String(s string) string {
	if s == "" {
		return s
	}
	s = urlRe.ReplaceAllStringFunc(s, URL)
	s = replaceKV(s)
	s = bearerRe.ReplaceAllString(s, "${1} "+Secret)
	return shapes.ReplaceAllString(s, Secret)
}

// replaceKV hides the values of credential-named keys, keeping their quotes.
func replaceKV(s string) string {
	idx := kvRe.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range idx {
		valStart, valEnd := m[4], m[5]
		b.WriteString(s[last:valStart])
		switch v := s[valStart:valEnd]; {
		case len(v) >= 2 && (v[0] == '"' || v[0] == '\''):
			b.WriteByte(v[0])
			b.WriteString(Secret)
			b.WriteByte(v[0])
		default:
			b.WriteString(Secret)
		}
		last = valEnd
	}
	b.WriteString(s[last:])
	return b.String()
}
