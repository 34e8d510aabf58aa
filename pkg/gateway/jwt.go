// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// JWTOptions configure the validation of OIDC JSON Web Tokens: signed
// RS256/384/512 or ES256/384/512 by a key of the JWKS, for Audience, not
// expired, and naming the caller in Claim.
type JWTOptions struct {
	// JWKSURL is where the signing keys are fetched (https; http only on
	// a loopback address). Required.
	JWKSURL string
	// Audience must be in the token's aud claim. Required.
	Audience string
	// Issuer, when set, must be the token's iss claim.
	Issuer string
	// Claim names the caller (a string claim holding an agent name);
	// default "sub".
	Claim string
	// Refresh is how long fetched keys are used before they are fetched
	// again; default DefaultJWKSRefresh. A token signed by a key not
	// known yet fetches them again, at most every minJWKSRefetch.
	Refresh time.Duration
	// Leeway is the clock skew allowed on exp, nbf and iat; default 1m.
	Leeway time.Duration
	// Client fetches the keys; default one with a 10s timeout.
	Client *http.Client
}

// Defaults of JWTOptions.
const (
	DefaultJWTClaim    = "sub"
	DefaultJWKSRefresh = 10 * time.Minute
	DefaultJWTLeeway   = time.Minute
)

// Bounds of the JWT validation.
const (
	minJWKSRefetch  = 30 * time.Second
	maxJWKSBytes    = 1 << 20
	maxJWTBytes     = 16 << 10
	jwksTimeout     = 10 * time.Second
	minRSAKeyBits   = 2048
	maxJWKSKeys     = 100
	jwksContentHint = "a JSON Web Key Set ({\"keys\": [...]})"
)

// ErrInvalidJWTOptions: the JWT settings are incomplete or malformed.
var ErrInvalidJWTOptions = errors.New("gateway: invalid JWT options")

// jwtVerifier validates tokens against the keys of a JWKS, fetched lazily
// and cached.
type jwtVerifier struct {
	o   JWTOptions
	now func() time.Time

	mu      sync.Mutex
	keys    []jwk
	fetched time.Time // when keys were fetched (zero: never)
	tried   time.Time // when a fetch was last tried
	lastErr error     // why the last fetch failed
}

// jwk is one usable key of the set.
type jwk struct {
	kid string
	alg string // "" when the set does not say
	pub crypto.PublicKey
}

func newJWTVerifier(o JWTOptions, now func() time.Time) (*jwtVerifier, error) {
	u, err := url.Parse(o.JWKSURL)
	switch {
	case o.JWKSURL == "" || err != nil || u.Host == "":
		return nil, fmt.Errorf("%w: JWKSURL %q is not an absolute URL", ErrInvalidJWTOptions, o.JWKSURL)
	case u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost(u.Hostname())):
		return nil, fmt.Errorf("%w: JWKSURL %q must be https (http only on a loopback address)", ErrInvalidJWTOptions, o.JWKSURL)
	case o.Audience == "":
		return nil, fmt.Errorf("%w: Audience is required", ErrInvalidJWTOptions)
	}
	if o.Claim == "" {
		o.Claim = DefaultJWTClaim
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultJWKSRefresh
	}
	if o.Leeway <= 0 {
		o.Leeway = DefaultJWTLeeway
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: jwksTimeout}
	}
	return &jwtVerifier{o: o, now: now}, nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// jwtHeader is the protected header of a token.
type jwtHeader struct {
	Alg  string `json:"alg"`
	Kid  string `json:"kid"`
	Crit []any  `json:"crit"`
}

// verify checks token and returns the caller name its claim holds.
func (v *jwtVerifier) verify(ctx context.Context, token string) (string, error) {
	if len(token) > maxJWTBytes {
		return "", fmt.Errorf("a JWT of %d bytes is over the %d allowed", len(token), maxJWTBytes)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", errors.New("not a JWT (three dot-separated parts)")
	}
	var h jwtHeader
	if err := decodeSegment(parts[0], &h); err != nil {
		return "", fmt.Errorf("header: %w", err)
	}
	if len(h.Crit) > 0 {
		return "", errors.New("header: crit extensions are not supported")
	}
	hash, family, err := algorithm(h.Alg)
	if err != nil {
		return "", err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "", errors.New("signature: not base64url")
	}
	hasher := hash.New()
	hasher.Write([]byte(parts[0] + "." + parts[1]))
	digest := hasher.Sum(nil)
	keys, err := v.keysFor(ctx, h.Kid)
	if err != nil {
		return "", err
	}
	verified := false
	for _, k := range keys {
		if k.alg != "" && k.alg != h.Alg {
			continue
		}
		if checkSignature(k.pub, family, hash, digest, sig) {
			verified = true
			break
		}
	}
	if !verified {
		return "", fmt.Errorf("the signature (%s, kid %q) does not verify with the keys of the JWKS", h.Alg, h.Kid)
	}
	var claims map[string]any
	if err := decodeSegment(parts[1], &claims); err != nil {
		return "", fmt.Errorf("claims: %w", err)
	}
	return v.checkClaims(claims)
}

// checkClaims checks exp, nbf, iat, aud and iss, and returns the caller
// name of the configured claim.
func (v *jwtVerifier) checkClaims(c map[string]any) (string, error) {
	now := v.now()
	exp, ok := numericDate(c["exp"])
	if !ok {
		return "", errors.New("claims: exp is required (a NumericDate)")
	}
	if now.After(exp.Add(v.o.Leeway)) {
		return "", fmt.Errorf("the token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if nbf, ok := numericDate(c["nbf"]); ok && now.Add(v.o.Leeway).Before(nbf) {
		return "", fmt.Errorf("the token is not valid before %s", nbf.UTC().Format(time.RFC3339))
	}
	if iat, ok := numericDate(c["iat"]); ok && now.Add(v.o.Leeway).Before(iat) {
		return "", fmt.Errorf("the token was issued in the future (%s)", iat.UTC().Format(time.RFC3339))
	}
	if !hasAudience(c["aud"], v.o.Audience) {
		return "", fmt.Errorf("the token is not for audience %q", v.o.Audience)
	}
	if v.o.Issuer != "" {
		if iss, _ := c["iss"].(string); iss != v.o.Issuer {
			return "", fmt.Errorf("the token's issuer is not %q", v.o.Issuer)
		}
	}
	name, _ := c[v.o.Claim].(string)
	if name == "" {
		return "", fmt.Errorf("claims: %q (the claim naming the caller) is missing or not a string", v.o.Claim)
	}
	return name, nil
}

func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

func hasAudience(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, e := range a {
			if s, ok := e.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return errors.New("not base64url")
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	return nil
}

// algorithm is the hash and the key family ("RSA" or "EC") of a JWS alg;
// only RSA PKCS#1 v1.5 and ECDSA are accepted (never none, never HMAC).
func algorithm(alg string) (crypto.Hash, string, error) {
	switch alg {
	case "RS256":
		return crypto.SHA256, "RSA", nil
	case "RS384":
		return crypto.SHA384, "RSA", nil
	case "RS512":
		return crypto.SHA512, "RSA", nil
	case "ES256":
		return crypto.SHA256, "EC", nil
	case "ES384":
		return crypto.SHA384, "EC", nil
	case "ES512":
		return crypto.SHA512, "EC", nil
	}
	return 0, "", fmt.Errorf("header: alg %q is not accepted (RS256, RS384, RS512, ES256, ES384 or ES512)", alg)
}

func checkSignature(pub crypto.PublicKey, family string, hash crypto.Hash, digest, sig []byte) bool {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return family == "RSA" && rsa.VerifyPKCS1v15(k, hash, digest, sig) == nil
	case *ecdsa.PublicKey:
		if family != "EC" || !curveFits(k.Curve, hash) {
			return false
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(k, digest, r, s)
	}
	return false
}

// curveFits pairs ES256 with P-256, ES384 with P-384 and ES512 with P-521.
func curveFits(c elliptic.Curve, hash crypto.Hash) bool {
	switch c {
	case elliptic.P256():
		return hash == crypto.SHA256
	case elliptic.P384():
		return hash == crypto.SHA384
	case elliptic.P521():
		return hash == crypto.SHA512
	}
	return false
}

// keysFor returns the keys that may have signed a token with kid: fetched
// when none were, when they are older than Refresh, or when none has kid —
// at most every minJWKSRefetch, so that bad tokens cannot make the gateway
// hammer the identity provider.
func (v *jwtVerifier) keysFor(ctx context.Context, kid string) ([]jwk, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	match := func() []jwk {
		var out []jwk
		for _, k := range v.keys {
			if kid == "" || k.kid == "" || k.kid == kid {
				out = append(out, k)
			}
		}
		return out
	}
	found := match()
	fresh := !v.fetched.IsZero() && now.Sub(v.fetched) < v.o.Refresh
	if len(found) > 0 && fresh {
		return found, nil
	}
	if v.tried.IsZero() || now.Sub(v.tried) >= minJWKSRefetch {
		v.tried = now
		keys, err := v.fetch(ctx)
		v.lastErr = err
		if err == nil {
			v.keys, v.fetched = keys, now
			found = match()
		}
	}
	switch {
	case len(found) > 0:
		return found, nil // when the JWKS is down, the keys we had still verify
	case v.fetched.IsZero():
		return nil, v.lastErr
	}
	return nil, fmt.Errorf("no key of the JWKS has kid %q", kid)
}

// fetch reads the JWKS, bounded in time and size.
func (v *jwtVerifier) fetch(ctx context.Context) ([]jwk, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.o.JWKSURL, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch the JWKS: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.o.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the JWKS: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch the JWKS: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch the JWKS: %w", err)
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("fetch the JWKS: over %d bytes", maxJWKSBytes)
	}
	return parseJWKS(body)
}

// rawJWK is a key of a JWKS as JSON.
type rawJWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// parseJWKS reads the signing keys of a set: RSA keys of at least 2048
// bits and EC keys on P-256, P-384 or P-521; others (encryption keys,
// symmetric keys, unknown types) are skipped.
func parseJWKS(body []byte) ([]jwk, error) {
	var set struct {
		Keys []rawJWK `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the JWKS is not %s: %w", jwksContentHint, err)
	}
	if len(set.Keys) > maxJWKSKeys {
		set.Keys = set.Keys[:maxJWKSKeys]
	}
	var out []jwk
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub, err := k.publicKey()
		if err != nil || pub == nil {
			continue
		}
		out = append(out, jwk{kid: k.Kid, alg: k.Alg, pub: pub})
	}
	if len(out) == 0 {
		return nil, errors.New("the JWKS has no usable signing key (RSA of 2048 bits or more, or EC on P-256, P-384 or P-521)")
	}
	return out, nil
}

func (k rawJWK) publicKey() (crypto.PublicKey, error) {
	b64 := base64.RawURLEncoding
	switch k.Kty {
	case "RSA":
		n, err1 := b64.DecodeString(k.N)
		e, err2 := b64.DecodeString(k.E)
		if err := errors.Join(err1, err2); err != nil || len(e) == 0 || len(e) > 4 {
			return nil, errors.New("bad RSA key")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < minRSAKeyBits || pub.E < 3 {
			return nil, errors.New("weak RSA key")
		}
		return pub, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, nil
		}
		x, err1 := b64.DecodeString(k.X)
		y, err2 := b64.DecodeString(k.Y)
		size := (curve.Params().BitSize + 7) / 8
		if errors.Join(err1, err2) != nil || len(x) != size || len(y) != size {
			return nil, errors.New("bad EC key")
		}
		return ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
	}
	return nil, nil
}
