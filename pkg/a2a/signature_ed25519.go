// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The ed25519 signature of an announcement (version 1). Beside the shared
// HMAC (HeaderSignature, the simple mode), an agent may sign its
// announcements with its own ed25519 key: HeaderSignerKey carries the public
// key (standard base64 of its 32 bytes) and HeaderSignatureEd25519 the
// signature, "v1:" then the standard base64 of the 64 signature bytes, over
//
//	"a2a-ed25519-v1\n" kind "\n" message id "\n" unix seconds "\n" signer key "\n" body
//
// (the timestamp at second precision, as AMQP carries it). A directory pins
// the key of an agent name and refuses cards for that name signed by another.
const (
	HeaderSignatureEd25519 = "a2a-signature-ed25519"
	HeaderSignerKey        = "a2a-signer-key"
	// Ed25519SignatureVersion prefixes the signature header's value.
	Ed25519SignatureVersion = "v1"
)

// ErrNotSigned: a message carries no ed25519 signature. It is not a bad
// signature: whether an unsigned message is accepted is the receiver's choice.
var ErrNotSigned = errors.New("a2a: not signed with ed25519")

// ErrInvalidKey: a public or private key is malformed.
var ErrInvalidKey = errors.New("a2a: invalid key")

// ed25519Domain separates these signatures from any other use of the key.
const ed25519Domain = "a2a-ed25519-v1\n"

// SignEd25519 adds the ed25519 signature of env (kind, message id,
// timestamp, signer key and body) under key to its headers, with the
// public key.
func SignEd25519(env *Envelope, key ed25519.PrivateKey) {
	if env.Headers == nil {
		env.Headers = map[string]string{}
	}
	pub := EncodePublicKey(key.Public().(ed25519.PublicKey))
	env.Headers[HeaderSignerKey] = pub
	sig := ed25519.Sign(key, signedBytes(*env, pub))
	env.Headers[HeaderSignatureEd25519] = Ed25519SignatureVersion + ":" + base64.StdEncoding.EncodeToString(sig)
}

// VerifyEd25519 checks env's ed25519 signature under the key it names and
// that its timestamp is within MaxSignatureAge of now, and returns that key.
// A message without the signature header is ErrNotSigned; any other failure
// wraps ErrBadSignature.
func VerifyEd25519(env Envelope, now time.Time) (ed25519.PublicKey, error) {
	got, ok := env.Headers[HeaderSignatureEd25519]
	if !ok {
		return nil, fmt.Errorf("%w: %s message %q", ErrNotSigned, env.Kind, env.MessageID)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s message %q: %s", ErrBadSignature, env.Kind, env.MessageID, fmt.Sprintf(format, args...))
	}
	version, b64, ok := strings.Cut(got, ":")
	if !ok || version != Ed25519SignatureVersion {
		return nil, bad("ed25519 signature of unknown version %q (this reader knows %q)", version, Ed25519SignatureVersion)
	}
	sig, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, bad("ed25519 signature is not %d bytes of base64", ed25519.SignatureSize)
	}
	keyText := env.Headers[HeaderSignerKey]
	pub, err := ParsePublicKey(keyText)
	if err != nil {
		return nil, bad("header %s: %v", HeaderSignerKey, err)
	}
	if !ed25519.Verify(pub, signedBytes(env, keyText), sig) {
		return nil, bad("ed25519 signature does not match")
	}
	if age := now.Sub(env.Timestamp); age > MaxSignatureAge || age < -MaxSignatureAge {
		return nil, bad("signed at %s, more than %s from now", env.Timestamp.UTC().Format(time.RFC3339), MaxSignatureAge)
	}
	return pub, nil
}

// signedBytes is what an ed25519 signature covers.
func signedBytes(env Envelope, signerKey string) []byte {
	var b bytes.Buffer
	b.Grow(len(ed25519Domain) + len(env.Kind) + len(env.MessageID) + len(signerKey) + len(env.Body) + 24)
	b.WriteString(ed25519Domain)
	fmt.Fprintf(&b, "%s\n%s\n%d\n%s\n", env.Kind, env.MessageID, env.Timestamp.Unix(), signerKey)
	b.Write(env.Body)
	return b.Bytes()
}

// EncodePublicKey is the text form of an ed25519 public key: the standard
// base64 of its 32 bytes (44 characters), as the well-known file and
// HeaderSignerKey carry it.
func EncodePublicKey(pub ed25519.PublicKey) string { return base64.StdEncoding.EncodeToString(pub) }

// ParsePublicKey reads an ed25519 public key in the text form of
// EncodePublicKey, or a PEM "PUBLIC KEY" block (PKIX, as openssl and
// a2abus keys generate write it). Errors wrap ErrInvalidKey.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		return parsePublicKeyPEM([]byte(s))
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: public key %q is neither standard base64 nor PEM", ErrInvalidKey, clip(s))
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: public key is %d bytes, an ed25519 key is %d", ErrInvalidKey, len(raw), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

func parsePublicKeyPEM(data []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%w: want a PEM \"PUBLIC KEY\" block", ErrInvalidKey)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: the PEM public key is a %T, not ed25519", ErrInvalidKey, k)
	}
	return pub, nil
}

// ParsePrivateKeyPEM reads an ed25519 private key from a PEM "PRIVATE KEY"
// block (PKCS #8, as `openssl genpkey -algorithm ed25519` and a2abus keys
// generate write it). Errors wrap ErrInvalidKey.
func ParsePrivateKeyPEM(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%w: want a PEM \"PRIVATE KEY\" block (PKCS #8)", ErrInvalidKey)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: the PEM private key is a %T, not ed25519", ErrInvalidKey, k)
	}
	return key, nil
}

// MarshalKeyPair returns the PEM forms of key: the private key (PKCS #8
// "PRIVATE KEY") and its public key (PKIX "PUBLIC KEY").
func MarshalKeyPair(key ed25519.PrivateKey) (private, public []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
