// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"strings"
	"testing"
)

// Typical payloads: an answer without secrets (the fast path), one whose
// words are candidates but no secret, and one holding secrets.
var (
	benchShort   = "The net present value at 8% over 5 years is 1,234.56 EUR."
	benchProse   = strings.Repeat("The quarterly report shows revenue growth of 12% driven by new customers in Europe. ", 24) // ~2 KiB
	benchWords   = strings.Repeat("Use the API key rotation policy and the token bucket limiter for each customer. ", 24)     // ~2 KiB, candidates
	benchSecrets = benchProse + " Connect with https://svc:hunter2@db.example.com/x, Authorization: Bearer abc.def.ghi, api_key=sk-proj-0123456789abcdefXYZ."
	benchJSON    = `{"taskId":"t1","agent":"Echo","state":"TASK_STATE_COMPLETED","message":{"role":"agent","parts":[{"text":` +
		`"` + benchProse + `"}]},"metadata":{"processingTimeMs":12}}`
)

func BenchmarkString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"short", benchShort}, {"prose-2KiB", benchProse}, {"candidates-2KiB", benchWords}, {"secrets-2KiB", benchSecrets},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			b.ReportAllocs()
			for b.Loop() {
				_ = String(c.s)
			}
		})
	}
	r, _ := New([]string{`ACME-[0-9]{6}`})
	b.Run("prose-2KiB-one-pattern", func(b *testing.B) {
		b.SetBytes(int64(len(benchProse)))
		b.ReportAllocs()
		for b.Loop() {
			_ = r.String(benchProse)
		}
	})
}

func BenchmarkJSON(b *testing.B) {
	secret := strings.Replace(benchJSON, "new customers", "token=abc new customers", 1)
	for _, c := range []struct{ name, s string }{{"clean-2KiB", benchJSON}, {"secret-2KiB", secret}} {
		raw := []byte(c.s)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				_ = (*Redactor)(nil).JSON(raw)
			}
		})
	}
}

func BenchmarkPreview(b *testing.B) {
	long := strings.Repeat(benchProse, 32) // 64 KiB
	b.ReportAllocs()
	for b.Loop() {
		_ = (*Redactor)(nil).Preview(long, 200)
	}
}

// BenchmarkRegexpReference is String as it was before the scan and the
// hand-read passes: the four regular expressions over every text (the
// tests' references), for comparison with BenchmarkString.
func BenchmarkRegexpReference(b *testing.B) {
	old := func(s string) string {
		s = urlRe.ReplaceAllStringFunc(s, URL)
		s = replaceKVRe(s)
		s = bearerRe.ReplaceAllString(s, "${1} "+Secret)
		return shapes.ReplaceAllString(s, Secret)
	}
	for _, c := range []struct{ name, s string }{
		{"short", benchShort}, {"prose-2KiB", benchProse}, {"candidates-2KiB", benchWords}, {"secrets-2KiB", benchSecrets},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				_ = old(c.s)
			}
		})
	}
}
