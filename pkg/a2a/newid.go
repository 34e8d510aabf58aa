// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns a random (version 4) UUID in its canonical form, as
// uuid.NewString does, with one allocation (the string) instead of two:
// every call takes a few (the task id, each message id).
func NewID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])  // never fails: crypto/rand crashes the program instead
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}
