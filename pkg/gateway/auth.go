// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Key is one API key or static bearer token and the caller name it acts
// as on the bus.
type Key struct {
	// Name is the caller name (an agent name) of whoever holds the key.
	Name string
	// Secret is the key, sent as "Authorization: Bearer <secret>" or
	// "X-API-Key: <secret>": at least MinKeyBytes of printable ASCII
	// without spaces.
	Secret string
}

// MinKeyBytes is the shortest key accepted.
const MinKeyBytes = 16

// APIKeyHeader is the header an API key may come in instead of
// "Authorization: Bearer".
const APIKeyHeader = "X-API-Key"

// Realm is the realm of the WWW-Authenticate challenge.
const Realm = "a2abus gateway"

// ErrInvalidKey: a key is too short, not printable, or given twice.
var ErrInvalidKey = errors.New("gateway: invalid key")

// CheckKeySecret says what is wrong with a key's secret, never quoting it.
func CheckKeySecret(secret string) error {
	if len(secret) < MinKeyBytes {
		return fmt.Errorf("must be at least %d bytes, got %d", MinKeyBytes, len(secret))
	}
	if strings.IndexFunc(secret, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII }) >= 0 {
		return errors.New("must be printable ASCII without spaces (it is sent in an HTTP header)")
	}
	return nil
}

// keyring finds the caller name of a key by the key's digest: the map is
// keyed by SHA-256, so a look-up reveals nothing of the keys through its
// timing but which digests exist.
type keyring map[[sha256.Size]byte]string

func newKeyring(keys []Key) (keyring, error) {
	k := keyring{}
	for i, key := range keys {
		if err := a2a.ValidateAgentName(key.Name); err != nil {
			return nil, fmt.Errorf("%w: key %d: name: %w", ErrInvalidKey, i+1, err)
		}
		if err := CheckKeySecret(key.Secret); err != nil {
			return nil, fmt.Errorf("%w: key %d (of %s): %w", ErrInvalidKey, i+1, key.Name, err)
		}
		sum := sha256.Sum256([]byte(key.Secret))
		if prev, dup := k[sum]; dup {
			return nil, fmt.Errorf("%w: key %d (of %s) is also the key of %s: each key names one caller", ErrInvalidKey, i+1, key.Name, prev)
		}
		k[sum] = key.Name
	}
	return k, nil
}

func (k keyring) lookup(secret string) (string, bool) {
	name, ok := k[sha256.Sum256([]byte(secret))]
	return name, ok
}

// authError is why a request is not let in: 401 (no or a bad credential,
// with a challenge) or 403 (a valid credential for a name this gateway
// does not act as).
type authError struct {
	status int
	reason string
	// invalid marks a credential that was sent but is not good (the
	// challenge says error="invalid_token").
	invalid bool
}

func (e *authError) Error() string { return e.reason }

func unauthorized(invalid bool, format string, args ...any) *authError {
	return &authError{status: http.StatusUnauthorized, reason: fmt.Sprintf(format, args...), invalid: invalid}
}

// credential is the secret a request carries: a bearer token or an API key.
func credential(r *http.Request) (secret string, bearer bool, err *authError) {
	auth, apiKey := r.Header.Values("Authorization"), r.Header.Values(APIKeyHeader)
	switch {
	case len(auth)+len(apiKey) == 0:
		return "", false, unauthorized(false, "no credential: send \"Authorization: Bearer <key or token>\" or \"%s: <key>\"", APIKeyHeader)
	case len(auth)+len(apiKey) > 1:
		return "", false, unauthorized(true, "more than one credential (Authorization and %s headers): send one", APIKeyHeader)
	case len(apiKey) == 1:
		if s := strings.TrimSpace(apiKey[0]); s != "" {
			return s, false, nil
		}
		return "", false, unauthorized(true, "the %s header is empty", APIKeyHeader)
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(auth[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false, unauthorized(true, "the Authorization header is not \"Bearer <key or token>\"")
	}
	if cred = strings.TrimSpace(cred); cred == "" {
		return "", false, unauthorized(true, "the bearer token is empty")
	}
	return cred, true, nil
}

// authenticate returns the caller name the request acts as: the name of
// its key, or the name its JWT's claim gives (one of the gateway's
// callers). It never quotes the credential.
func (g *Gateway) authenticate(ctx context.Context, r *http.Request) (string, *authError) {
	secret, bearer, aerr := credential(r)
	if aerr != nil {
		return "", aerr
	}
	if name, ok := g.keys.lookup(secret); ok {
		return name, nil
	}
	if bearer && g.jwt != nil && strings.Count(secret, ".") == 2 {
		name, err := g.jwt.verify(ctx, secret)
		if err != nil {
			return "", unauthorized(true, "the token was refused: %v", err)
		}
		c := g.callerOf(name)
		if c == nil {
			return "", &authError{status: http.StatusForbidden, reason: fmt.Sprintf(
				"the token names caller %q, which this gateway does not act as (gateway.jwt.callers)", name)}
		}
		return c.Name(), nil
	}
	return "", unauthorized(true, "the key or token is not one this gateway knows")
}

// challenge is the WWW-Authenticate value of a 401.
func challenge(e *authError) string {
	c := "Bearer realm=" + strconv.Quote(Realm)
	if e.invalid {
		c += `, error="invalid_token"`
	}
	return c
}
