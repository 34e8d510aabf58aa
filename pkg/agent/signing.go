// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"crypto/ed25519"
	"fmt"
	"os"

	"github.com/a2abus/a2abus/internal/fileread"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// MaxSigningKeyFileBytes bounds the signing key file; a longer one, or a
// path that is not a regular file (a FIFO, a device), is refused unread.
const MaxSigningKeyFileBytes = 64 << 10

// LoadSigningKey reads the agent's ed25519 private key (agent.signing_key_file)
// from a PEM "PRIVATE KEY" file (PKCS #8), as `a2abus keys generate` and
// `openssl genpkey -algorithm ed25519` write it. A file others may read is
// refused: the key is the agent's identity in the directory.
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agent: signing key: %w", err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("agent: signing key %q is readable by others (mode %04o); chmod 600 it", path, perm)
	}
	data, err := fileread.Read(path, MaxSigningKeyFileBytes)
	if err != nil {
		return nil, fmt.Errorf("agent: signing key: %w", err)
	}
	key, err := a2a.ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("agent: signing key %q: %w", path, err)
	}
	return key, nil
}

// checkSigningKey accepts no key or a whole ed25519 private key.
func checkSigningKey(key ed25519.PrivateKey) error {
	if key != nil && len(key) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: SigningKey is %d bytes, an ed25519 private key is %d", ErrInvalidOptions, len(key), ed25519.PrivateKeySize)
	}
	return nil
}

// signAnnouncement signs env with the shared secret (the simple mode) and
// with the agent's own key, each when set.
func (a *Agent) signAnnouncement(env *a2a.Envelope) {
	if len(a.opts.AnnounceSecret) > 0 {
		a2a.Sign(env, a.opts.AnnounceSecret)
	}
	if a.opts.SigningKey != nil {
		a2a.SignEd25519(env, a.opts.SigningKey)
	}
}
