// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"fmt"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// MaxKeyLen is the longest key (and List prefix) in bytes.
const MaxKeyLen = 512

// globChars may not appear in a key, so a key used as a SCAN prefix can never
// match more than the keys it starts.
const globChars = `*?[]\`

// ValidateKey reports whether key is a legal working-memory key: 1 to 512 bytes
// of printable ASCII without spaces or the glob characters * ? [ ] \, in
// "/"-separated segments none of which is empty, "." or "..".
func ValidateKey(key string) error { return validateKey("key", key) }

// ValidateOnceID reports whether id may name an AppendTurnOnce: the same rules
// as a key (e.g. "notify/<taskId>/result").
func ValidateOnceID(id string) error { return validateKey("once id", id) }

// ValidatePrefix reports whether prefix may be passed to List: "" (every key),
// or a legal key optionally followed by one "/" (e.g. "session/abc/").
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if len(prefix) > MaxKeyLen {
		return invalidKey("prefix", prefix, fmt.Sprintf("is %d bytes, the limit is %d", len(prefix), MaxKeyLen))
	}
	trimmed := strings.TrimSuffix(prefix, "/")
	if trimmed == "" {
		return invalidKey("prefix", prefix, "segment 1 is empty (leading, trailing or double \"/\")")
	}
	return validateKey("prefix", trimmed)
}

func validateKey(what, key string) error {
	if key == "" {
		return invalidKey(what, key, "is empty")
	}
	if len(key) > MaxKeyLen {
		return invalidKey(what, key, fmt.Sprintf("is %d bytes, the limit is %d", len(key), MaxKeyLen))
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c <= ' ' || c > '~':
			return invalidKey(what, key, fmt.Sprintf("byte %d (%q) is a space, a control character or not ASCII", i, c))
		case strings.IndexByte(globChars, c) >= 0:
			return invalidKey(what, key, fmt.Sprintf("byte %d (%q) is a glob character (one of %s)", i, c, globChars))
		}
	}
	rest := key
	for i := 1; ; i++ { // the segments between "/", without allocating them
		seg, after, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return invalidKey(what, key, fmt.Sprintf("segment %d is empty (leading, trailing or double \"/\")", i))
		case ".", "..":
			return invalidKey(what, key, fmt.Sprintf("segment %d is %q", i, seg))
		}
		if !more {
			return nil
		}
		rest = after
	}
}

// ValidateSessionID reports whether id is a legal session id: a letter or digit,
// then up to 127 letters, digits, '_', '.', ':' or '-', never "..".
// It applies the wire protocol's rule (a2a.ValidateSessionID).
func ValidateSessionID(id string) error {
	if err := a2a.ValidateSessionID(id); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return nil
}

func invalidKey(what, value, rule string) error {
	const show = 64
	if len(value) > show {
		value = value[:show] + "..."
	}
	return fmt.Errorf("%w: %s %q %s", ErrInvalidKey, what, value, rule)
}
