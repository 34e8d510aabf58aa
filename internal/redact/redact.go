// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package redact is the one redaction pass: it hides secrets in text that
// is logged, stored or given to a model — the passwords of URLs, bearer
// tokens, credentials written as key=value or "key": "value", a few
// well-known token shapes (JWTs, GitHub, Slack, AWS and sk- API keys), and
// the text of configured patterns (New, SetDefault). It errs on the side of
// hiding too much. A scan finds the candidates of each kind of secret
// first, so text without any costs one pass over its bytes and no
// regular expression.
package redact

import (
	"net/url"
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

// String returns s with every secret the process's redactor (Default)
// recognises replaced by Secret: URL passwords, values of keys such as
// password, token, secret, api_key or authorization (key=value, key: value,
// "key": "value"), bearer tokens, well-known token shapes, and the text the
// configured patterns match. Text without secrets is returned unchanged.
func String(s string) string { return Default().String(s) }

// builtins runs the built-in passes that scan found candidates for.
func builtins(s string, f family) string {
	if f&famURL != 0 {
		s = replaceURLs(s)
	}
	if f&famKV != 0 {
		s = replaceKV(s)
	}
	if f&famBearer != 0 {
		s = replaceBearers(s)
	}
	if f&famShape != 0 {
		s = replaceShapes(s)
	}
	return s
}
