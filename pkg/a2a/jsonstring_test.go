// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString holds AppendJSONString and AppendJSONStringMap byte-equal to
// encoding/json on any strings: escapes, control bytes, HTML characters,
// U+2028 and U+2029, invalid UTF-8, keys in any order.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "\u2028\u2029", "\x00\x1f\x7f\b\f\n\r\t\\", "\xff\xe2\x80", "é€😀\ufffd"} {
		f.Add(s, s+"k")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want, _ := json.Marshal(a)
		if got := AppendJSONString(nil, a); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json %s", a, got, want)
		}
		m := map[string]string{a: b, b: a, "z" + a: "", "": b}
		want, _ = json.Marshal(m)
		if got := AppendJSONStringMap(nil, m); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSONStringMap(%q) = %s, encoding/json %s", m, got, want)
		}
		if got := AppendJSONStringMap(nil, nil); string(got) != "null" {
			t.Fatalf("AppendJSONStringMap(nil) = %s", got)
		}
	})
}
