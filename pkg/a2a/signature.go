// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// HeaderSignature carries the HMAC-SHA256 of a signed message (announcements).
const HeaderSignature = "a2a-signature"

// MaxSignatureAge is how old (or how far in the future) a signed message's
// timestamp may be: an older copy cannot be replayed.
const MaxSignatureAge = 5 * time.Minute

// ErrBadSignature: a message that must be signed is unsigned, signed with
// another secret, or too old.
var ErrBadSignature = errors.New("a2a: bad signature")

// Sign adds the HMAC-SHA256 of env (kind, message id, timestamp and body)
// under secret to its headers.
func Sign(env *Envelope, secret []byte) {
	if env.Headers == nil {
		env.Headers = map[string]string{}
	}
	env.Headers[HeaderSignature] = hex.EncodeToString(signature(*env, secret))
}

// Verify checks env's signature under secret and that its timestamp is
// within MaxSignatureAge of now; failures wrap ErrBadSignature.
func Verify(env Envelope, secret []byte, now time.Time) error {
	got, ok := env.Headers[HeaderSignature]
	if !ok {
		return fmt.Errorf("%w: %s message %q is not signed", ErrBadSignature, env.Kind, env.MessageID)
	}
	sig, err := hex.DecodeString(got)
	if err != nil || !hmac.Equal(sig, signature(env, secret)) {
		return fmt.Errorf("%w: %s message %q: signature does not match", ErrBadSignature, env.Kind, env.MessageID)
	}
	if age := now.Sub(env.Timestamp); age > MaxSignatureAge || age < -MaxSignatureAge {
		return fmt.Errorf("%w: %s message %q is signed at %s, more than %s from now", ErrBadSignature, env.Kind, env.MessageID,
			env.Timestamp.UTC().Format(time.RFC3339), MaxSignatureAge)
	}
	return nil
}

// signature is the MAC of the fields a transport carries unchanged. The
// timestamp is taken at second precision, as AMQP carries it.
func signature(env Envelope, secret []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	fmt.Fprintf(mac, "%s\n%s\n%d\n", env.Kind, env.MessageID, env.Timestamp.Unix())
	mac.Write(env.Body)
	return mac.Sum(nil)
}
